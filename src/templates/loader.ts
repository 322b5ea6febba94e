import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseDocument } from 'yaml'
import { AppError } from '../errors.ts'

/** A project description: the format of `templates/*.yaml`. */
export interface ProjectFile {
  name: string
  description: string
  resources: { path: string; records: Record<string, unknown>[] }[]
  endpoints: { method: string; path: string; status?: number; body?: unknown; delay?: number; headers?: Record<string, string> }[]
}

export interface TemplateInfo {
  name: string
  title: string
  description: string
}

// Two levels up from src/templates or dist/templates is the package root.
const TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url))

function fail(source: string, message: string): never {
  throw new AppError('INVALID_INPUT', `${source}: ${message}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** Parses and checks a project file; every refusal names the file and, for YAML errors, the line. */
export function parseProjectFile(text: string, source: string): ProjectFile {
  const document = parseDocument(text, { prettyErrors: true })
  if (document.errors.length > 0) {
    const first = document.errors[0]!
    const line = first.linePos?.[0].line
    fail(source, `${line ? `line ${line}: ` : ''}${first.message.split('\n')[0]}`)
  }
  const value: unknown = document.toJS()
  if (!isObject(value)) fail(source, 'must be a YAML mapping with name, resources and endpoints')
  if (typeof value.name !== 'string' || !value.name.trim()) fail(source, '"name" must be a non-empty string')
  const resources = value.resources ?? []
  const endpoints = value.endpoints ?? []
  if (!Array.isArray(resources)) fail(source, '"resources" must be a list')
  if (!Array.isArray(endpoints)) fail(source, '"endpoints" must be a list')
  resources.forEach((resource: unknown, i: number) => {
    if (!isObject(resource) || typeof resource.path !== 'string') fail(source, `resources[${i}] needs a "path"`)
    const records = resource.records ?? []
    if (!Array.isArray(records) || !records.every(isObject)) fail(source, `resources[${i}].records must be a list of objects`)
  })
  endpoints.forEach((endpoint: unknown, i: number) => {
    if (!isObject(endpoint) || typeof endpoint.method !== 'string' || typeof endpoint.path !== 'string') {
      fail(source, `endpoints[${i}] needs a "method" and a "path"`)
    }
  })
  return {
    name: value.name.trim(),
    description: typeof value.description === 'string' ? value.description : '',
    resources: (resources as Record<string, unknown>[]).map((r) => ({
      path: r.path as string,
      records: (r.records ?? []) as Record<string, unknown>[],
    })),
    endpoints: endpoints as ProjectFile['endpoints'],
  }
}

export function listTemplates(): TemplateInfo[] {
  return readdirSync(TEMPLATES_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.yaml'.length)
      const template = loadTemplate(name)
      return { name, title: template.name, description: template.description }
    })
}

export function loadTemplate(name: string): ProjectFile {
  if (!/^[a-z0-9-]+$/.test(name)) throw new AppError('NOT_FOUND', `no template named "${name}"`)
  let text: string
  try {
    text = readFileSync(`${TEMPLATES_DIR}${name}.yaml`, 'utf8')
  } catch {
    const known = readdirSync(TEMPLATES_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5))
    throw new AppError('NOT_FOUND', `no template named "${name}" (available: ${known.join(', ')})`)
  }
  return parseProjectFile(text, `template ${name}`)
}
