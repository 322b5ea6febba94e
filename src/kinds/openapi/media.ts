import type { MediaSpec } from './types.ts'

const _base = (type: string) => (type.split(';')[0] ?? '').trim().toLowerCase()

/** `application/json`, `…+json` and `*\/*` (which we answer with JSON). */
export function isJsonish(type: string): boolean {
  const base = _base(type)
  return base === 'application/json' || base.endsWith('+json') || base === '*/*'
}

export function isForm(type: string): boolean {
  const base = _base(type)
  return base === 'application/x-www-form-urlencoded' || base === 'multipart/form-data'
}

export function isXml(type: string): boolean {
  const base = _base(type)
  return base.endsWith('/xml') || base.endsWith('+xml')
}

/** Whether a concrete type falls in a media range (`text/*`, `*\/*`, `application/json`). */
function _matches(range: string, type: string): boolean {
  const [rangeMain, rangeSub] = _base(range).split('/')
  const [main, sub] = _base(type).split('/')
  return (rangeMain === '*' || rangeMain === main) && (rangeSub === '*' || rangeSub === sub)
}

/** The media a request's Content-Type selects: exact first, then documented ranges (`text/*`, `*\/*`). */
export function mediaForContentType(media: MediaSpec[], contentType: string): MediaSpec | undefined {
  return media.find((m) => _base(m.type) === _base(contentType)) ?? media.find((m) => _matches(m.type, contentType))
}

/** The response media for an Accept header (in its order of preference), else the first JSON-ish, else the first. */
export function mediaForAccept(media: MediaSpec[], accept: string | null | undefined): MediaSpec | undefined {
  const ranges = (accept ?? '')
    .split(',')
    .map((part) => {
      const [range = '', ...params] = part.split(';')
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
      return { range: range.trim(), q: q ? Number(q.slice(2)) : 1 }
    })
    .filter(({ range, q }) => range && range !== '*/*' && q > 0)
    .sort((a, b) => b.q - a.q)
  for (const { range } of ranges) {
    const found = media.find((m) => _matches(range, m.type) || _matches(m.type, range))
    if (found) return found
  }
  return media.find((m) => isJsonish(m.type)) ?? media[0]
}
