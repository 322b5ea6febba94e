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

export function isText(type: string): boolean {
  return _base(type).startsWith('text/') && !isXml(type)
}

export function isCsv(type: string): boolean {
  return _base(type) === 'text/csv'
}

/** Bytes mockapi cannot make up (images, PDFs, octet streams): neither JSON, XML, text nor a form. */
export function isBinary(type: string): boolean {
  return !isJsonish(type) && !isXml(type) && !isText(type) && !isForm(type)
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

interface AcceptRange {
  range: string
  q: number
  /** 0 for `*\/*`, 1 for `text/*`, 2 for a full type: the most specific range that matches a type sets its quality (RFC 9110 §12.5.1). */
  specificity: number
  /** Position in the header: among equal qualities the client's order wins. */
  order: number
}

function _parseAccept(accept: string): AcceptRange[] {
  return accept.split(',').flatMap((part, order) => {
    const [rawRange = '', ...params] = part.split(';')
    const range = _base(rawRange)
    if (!/^[^/\s]+\/[^/\s]+$/.test(range)) return []
    const qParam = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='))
    const q = qParam === undefined ? 1 : Number(qParam.slice(2))
    const specificity = range === '*/*' ? 0 : range.endsWith('/*') ? 1 : 2
    return Number.isFinite(q) ? [{ range, q: Math.min(Math.max(q, 0), 1), specificity, order }] : []
  })
}

/**
 * The type an answer is sent as: the documented one; for a documented range, the concrete type
 * asked for when mockapi can write it (JSON, XML, text), else a plain member of the range.
 */
function _concrete(documented: string, asked: string): string {
  if (!documented.includes('*')) return documented
  const writable = isJsonish(asked) || isXml(asked) || isText(asked)
  if (!asked.includes('*') && writable && _matches(documented, asked)) return asked
  const main = _base(documented).split('/')[0]
  if (main === 'text') return 'text/plain'
  if (main === '*' || main === 'application') return 'application/json'
  return `${main}/octet-stream`
}

export interface Negotiated {
  media: MediaSpec
  /** The Content-Type to answer with (a documented `*\/*` or `text/*` made concrete). */
  type: string
}

/**
 * The response media an `Accept` header selects: each documented type takes the quality of the
 * most specific range that matches it; the best quality wins, ties going to the range the client
 * listed first, then to JSON, then to the spec's order. No header (or only `*\/*`): JSON if
 * documented, else the first. null when the header refuses every documented type.
 */
export function negotiate(media: MediaSpec[], accept: string | null | undefined): Negotiated | null {
  const fallback = media.find((m) => isJsonish(m.type)) ?? media[0]
  const ranges = _parseAccept(accept ?? '')
  if (!accept?.trim() || ranges.length === 0) return fallback ? { media: fallback, type: _concrete(fallback.type, '*/*') } : null
  let best: { media: MediaSpec; type: string; q: number; order: number; json: boolean; index: number } | null = null
  media.forEach((m, index) => {
    const fitting = ranges.filter((r) => _matches(r.range, m.type) || _matches(m.type, r.range))
    if (fitting.length === 0) return
    const top = Math.max(...fitting.map((r) => r.specificity))
    const ruling = fitting.filter((r) => r.specificity === top).sort((a, b) => b.q - a.q || a.order - b.order)[0]!
    if (ruling.q <= 0) return
    const candidate = { media: m, type: _concrete(m.type, ruling.range), q: ruling.q, order: ruling.order, json: isJsonish(m.type), index }
    if (!best || _better(candidate, best)) best = candidate
  })
  const chosen = best as { media: MediaSpec; type: string } | null
  return chosen ? { media: chosen.media, type: chosen.type } : null
}

function _better(a: { q: number; order: number; json: boolean; index: number }, b: { q: number; order: number; json: boolean; index: number }): boolean {
  if (a.q !== b.q) return a.q > b.q
  if (a.order !== b.order) return a.order < b.order
  if (a.json !== b.json) return a.json
  return a.index < b.index
}

