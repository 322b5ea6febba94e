import type { Faker } from '@faker-js/faker'
import { randomUUID } from 'node:crypto'
import { AppError } from '../errors.ts'
import { checkGenerator, resolveGenerator } from './generators.ts'

/**
 * Response templates: `{{…}}` placeholders in the strings of a JSON body, fresh on every call.
 * A string that is one placeholder takes the value's own type (`"{{faker.number.int}}"` → 42).
 *
 *   {{faker.person.fullName}}  {{faker.number.int({"min":1,"max":9})}}  any faker method, optional JSON argument
 *   {{params.id}} {{query.page}} {{body.user.name}} {{headers.x-trace}} {{cookies.sid}}  request values (dotted paths)
 *   {{now}} ISO time · {{nowMs}} epoch ms · {{nowSeconds}} epoch s · {{uuid}}
 */
export interface TemplateContext {
  params: Record<string, string>
  query: Record<string, string>
  body: unknown
  headers: Record<string, string>
  cookies: Record<string, string>
  faker: Faker | null
  now: Date
}

const ROOTS = ['faker', 'params', 'query', 'body', 'headers', 'cookies', 'now', 'nowMs', 'nowSeconds', 'uuid']
/**
 * The most characters placeholders may add to one rendered body: `{{body}}` a thousand times over a
 * large request, or many large generators, would otherwise build a response of gigabytes.
 */
export const MAX_RENDERED_LENGTH = 8 * 1024 * 1024

interface Placeholder {
  start: number
  end: number
  expression: string
}


/**
 * The placeholder opening at `open` (`{{`), or null. A name has no braces; an argument in
 * parentheses may hold them (JSON) but no parentheses. One scan, no backtracking: each character is
 * read a bounded number of times, so `"{{"` and 4,000 spaces is as quick as any other text.
 */
function placeholderAt(text: string, open: number): Placeholder | null {
  let i = open + 2
  let inArgument = false
  while (i < text.length) {
    const c = text[i]
    if (inArgument) {
      if (c === '(') return null
      if (c === ')') inArgument = false
    } else if (c === '(') inArgument = true
    else if (c === '}') return text[i + 1] === '}' ? { start: open, end: i + 2, expression: text.slice(open + 2, i).trim() } : null
    else if (c === '{') return null
    i += 1
  }
  return null
}

/** Every placeholder in `text`, in order. */
function placeholders(text: string): Placeholder[] {
  const found: Placeholder[] = []
  for (let open = text.indexOf('{{'); open >= 0;) {
    const placeholder = placeholderAt(text, open)
    if (placeholder) found.push(placeholder)
    open = text.indexOf('{{', placeholder ? placeholder.end : open + 1)
  }
  return found
}

export function hasPlaceholders(text: string): boolean {
  return text.includes('{{')
}

export function usesFaker(text: string): boolean {
  return placeholders(text).some((placeholder) => placeholder.expression.startsWith('faker.'))
}

function dig(value: unknown, path: string[]): unknown {
  let current = value
  for (const key of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return null
    current = (current as Record<string, unknown>)[key]
  }
  return current ?? null
}

function evaluate(expression: string, context: TemplateContext): unknown {
  const [root, ...path] = expression.split('(')[0]!.split('.')
  switch (root) {
    case 'now': return context.now.toISOString()
    case 'nowMs': return context.now.getTime()
    case 'nowSeconds': return Math.floor(context.now.getTime() / 1000)
    case 'uuid': return randomUUID()
    case 'params': return dig(context.params, path)
    case 'query': return dig(context.query, path)
    case 'headers': return dig(context.headers, path.map((p) => p.toLowerCase()))
    case 'cookies': return dig(context.cookies, path)
    case 'body': return dig(context.body, path)
    case 'faker':
      return context.faker ? resolveGenerator(expression.slice('faker.'.length), context.faker)() : null
    default: return null
  }
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.flatMap(stringsOf)
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsOf)
  return []
}

/**
 * Refuses, when an endpoint is configured rather than on every call: unknown placeholders, faker
 * methods that are not faker's own, oversized or failing generator arguments (each is drawn once),
 * and a body whose generators alone render more than MAX_RENDERED_LENGTH.
 */
export function checkTemplate(jsonText: string, faker: Faker): void {
  checkPlaceholders(stringsOf(JSON.parse(jsonText)).flatMap(placeholders), faker)
  refuseOversized(() => renderTemplate(jsonText, emptyContext(faker)))
}

/** `checkTemplate` for a text template (a text body, a header value). */
export function checkTextTemplate(text: string, faker: Faker): void {
  checkPlaceholders(placeholders(text), faker)
  refuseOversized(() => renderText(text, emptyContext(faker)))
}

function checkPlaceholders(found: Placeholder[], faker: Faker): void {
  for (const { expression } of found) {
    const root = expression.split(/[.(]/)[0]!
    if (!ROOTS.includes(root)) throw new AppError('INVALID_INPUT', `template {{${expression}}}: unknown name "${root}" (use ${ROOTS.join(', ')})`)
    if (root === 'faker') checkGenerator(expression.slice('faker.'.length), faker)
  }
}

function emptyContext(faker: Faker): TemplateContext {
  return { params: {}, query: {}, body: null, headers: {}, cookies: {}, faker, now: new Date() }
}

function refuseOversized(render: () => unknown): void {
  try {
    render()
  } catch (error) {
    if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') throw new AppError('INVALID_INPUT', error.message)
    throw error
  }
}

/** Characters placeholders have added so far to one rendering. */
interface Budget {
  used: number
}

function spend(budget: Budget, value: unknown): void {
  budget.used += typeof value === 'string' ? value.length : value !== null && typeof value === 'object' ? JSON.stringify(value).length : 16
  if (budget.used > MAX_RENDERED_LENGTH) {
    throw new AppError('PAYLOAD_TOO_LARGE', `the response template renders more than ${MAX_RENDERED_LENGTH / 1024 / 1024} MiB: it repeats large request values or generators too often`)
  }
}

function renderString(text: string, context: TemplateContext, budget: Budget): unknown {
  const found = placeholders(text)
  const first = found[0]
  if (found.length === 1 && first!.start === 0 && first!.end === text.length) {
    const value = evaluate(first!.expression, context)
    spend(budget, value)
    return value
  }
  return interpolate(text, found, context, budget)
}

/** Every placeholder replaced by its value as text (objects as JSON, null as nothing). */
function interpolate(text: string, found: Placeholder[], context: TemplateContext, budget: Budget): string {
  let rendered = ''
  let from = 0
  for (const placeholder of found) {
    const value = evaluate(placeholder.expression, context)
    const piece = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
    spend(budget, piece)
    rendered += text.slice(from, placeholder.start) + piece
    from = placeholder.end
  }
  return rendered + text.slice(from)
}

function renderValue(value: unknown, context: TemplateContext, budget: Budget): unknown {
  if (typeof value === 'string') return hasPlaceholders(value) ? renderString(value, context, budget) : value
  if (Array.isArray(value)) return value.map((item) => renderValue(item, context, budget))
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) Object.defineProperty(result, key, { value: renderValue(item, context, budget), enumerable: true, writable: true, configurable: true })
    return result
  }
  return value
}

/** Renders a JSON body text with placeholders into a JSON text; refuses (413) one that would grow past MAX_RENDERED_LENGTH. */
export function renderTemplate(jsonText: string, context: TemplateContext): string {
  return JSON.stringify(renderValue(JSON.parse(jsonText), context, { used: 0 }))
}

/** Renders a text template (a text body, a header value); refuses (413) one that would grow past MAX_RENDERED_LENGTH. */
export function renderText(text: string, context: TemplateContext): string {
  return hasPlaceholders(text) ? interpolate(text, placeholders(text), context, { used: 0 }) : text
}
