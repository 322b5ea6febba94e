import { describe, expect, it } from 'vitest'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { ROOT } from '../_helpers.ts'

/**
 * Every relative link and `#anchor` in README.md, CONTRIBUTING.md and docs/*.md resolves: the file
 * exists, and the anchor is the slug of one of its headings, made as GitHub makes them (lowercase,
 * punctuation dropped, spaces to hyphens, `-1`, `-2`… on repeats). Links inside code are not links.
 */

const DOC_FILES = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)]

interface Link {
  target: string
  line: number
}

/** The file's lines with fenced blocks emptied and inline code spans removed, numbering kept. */
function proseLines(text: string): string[] {
  let fence: string | null = null
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === null && marker) {
      fence = marker
      return ''
    }
    if (fence !== null) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null
      return ''
    }
    return line.replace(/(`+)[\s\S]*?\1/g, '')
  })
}

function headingSlugs(text: string): Set<string> {
  const seen = new Map<string, number>()
  const slugs = new Set<string>()
  let fence = false
  for (const line of text.split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence
    const heading = fence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
    if (!heading) continue
    const visible = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*`]/g, '')
    const base = visible.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    slugs.add(count === 0 ? base : `${base}-${count}`)
  }
  return slugs
}

function links(text: string): Link[] {
  const found: Link[] = []
  proseLines(text).forEach((line, index) => {
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: match[1]!, line: index + 1 })
  })
  return found
}

const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target)

function problems(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8')
  const out: string[] = []
  for (const { target, line } of links(text)) {
    if (isExternal(target)) continue
    const [path, anchor] = target.split('#', 2) as [string, string | undefined]
    const resolved = path === '' ? join(ROOT, file) : join(ROOT, dirname(file), decodeURIComponent(path))
    const where = `${file}:${line} → ${target}`
    if (relative(ROOT, resolved).startsWith('..')) {
      out.push(`${where}: points outside the repository`)
      continue
    }
    if (!existsSync(resolved)) {
      out.push(`${where}: no such file`)
      continue
    }
    if (anchor === undefined) continue
    if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) {
      out.push(`${where}: an anchor into a file that is not markdown`)
      continue
    }
    if (!headingSlugs(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) out.push(`${where}: no heading with that anchor`)
  }
  return out
}

describe('links in the docs', () => {
  it('make anchors as GitHub does', () => {
    const slugs = headingSlugs('# A 60-second tour\n## Where the `mockapi` command comes from\n### Imports (OpenAPI / Swagger)\n## What happens when…\n## Notes\n## Notes\n```sh\n# not a heading\n```')
    expect([...slugs]).toEqual(['a-60-second-tour', 'where-the-mockapi-command-comes-from', 'imports-openapi--swagger', 'what-happens-when', 'notes', 'notes-1'])
  })

  it('finds links in prose and tables, not in code', () => {
    const found = links('See [a](docs/a.md#x) and | [b](b.md) |\n`[c](c.md)` ```` ```sh ```` [d](#d)\n```md\n[e](e.md)\n```')
    expect(found.map((link) => link.target)).toEqual(['docs/a.md#x', 'b.md', '#d'])
  })

  it('resolve: every relative link names a file, every #anchor a heading', () => {
    expect(DOC_FILES.length).toBeGreaterThan(3)
    const all = DOC_FILES.flatMap(problems)
    expect(all, all.join('\n')).toEqual([])
    expect(DOC_FILES.flatMap((file) => links(readFileSync(join(ROOT, file), 'utf8'))).filter((link) => !isExternal(link.target)).length).toBeGreaterThan(20)
  })
})

describe('README.md', () => {
  it('stays at most 15 KB: the rest of the reference lives in docs/ and CONTRIBUTING.md', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(15_000)
  })
})
