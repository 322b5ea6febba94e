import type { Faker } from '@faker-js/faker'
import { randomUUID } from 'node:crypto'
import { AppError } from '../errors.ts'
import { resolveGenerator } from './generators.ts'

/**
 * Response templates: `{{…}}` placeholders in the strings of a JSON body, fresh on every call.
 * A string that is one placeholder takes the value's own type (`"{{faker.number.int}}"` → 42).
 *
 *   {{faker.person.fullName}}  {{faker.number.int({"min":1,"max":9})}}  any faker method, optional JSON argument
 *   {{params.id}} {{query.page}} {{body.user.name}} {{headers.x-trace}}  request values (dotted paths)
 *   {{now}} ISO time · {{nowMs}} epoch ms · {{nowSeconds}} epoch s · {{uuid}}
 */
export interface TemplateContext {
  params: Record<string, string>
  query: Record<string, string>
  body: unknown
  headers: Record<string, string>
  faker: Faker | null
  now: Date
}

const PLACEHOLDER = /\{\{\s*([^{}]*?(?:\([^()]*\))?)\s*\}\}/g
const WHOLE = /^\{\{\s*([^{}]*?(?:\([^()]*\))?)\s*\}\}$/
const ROOTS = ['faker', 'params', 'query', 'body', 'headers', 'now', 'nowMs', 'nowSeconds', 'uuid']

export function hasPlaceholders(text: string): boolean {
  return text.includes('{{')
}

export function usesFaker(text: string): boolean {
  return /\{\{\s*faker\./.test(text)
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

/** Refuses unknown placeholders when an endpoint is configured, not when it is called. */
export function checkTemplate(jsonText: string, faker: Faker): void {
  for (const match of stringsOf(JSON.parse(jsonText)).flatMap((text) => [...text.matchAll(PLACEHOLDER)])) {
    const expression = match[1]!
    const root = expression.split(/[.(]/)[0]!
    if (!ROOTS.includes(root)) throw new AppError('INVALID_INPUT', `template {{${expression}}}: unknown name "${root}" (use ${ROOTS.join(', ')})`)
    if (root === 'faker') resolveGenerator(expression.slice('faker.'.length), faker)
  }
}

function renderString(text: string, context: TemplateContext): unknown {
  const whole = WHOLE.exec(text)
  if (whole) return evaluate(whole[1]!, context)
  return text.replace(PLACEHOLDER, (_match, expression: string) => {
    const value = evaluate(expression, context)
    return value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
  })
}

function renderValue(value: unknown, context: TemplateContext): unknown {
  if (typeof value === 'string') return hasPlaceholders(value) ? renderString(value, context) : value
  if (Array.isArray(value)) return value.map((item) => renderValue(item, context))
  if (value !== null && typeof value === 'object') {
    const result: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) Object.defineProperty(result, key, { value: renderValue(item, context), enumerable: true, writable: true, configurable: true })
    return result
  }
  return value
}

/** Renders a JSON body text with placeholders into a JSON text. */
export function renderTemplate(jsonText: string, context: TemplateContext): string {
  return JSON.stringify(renderValue(JSON.parse(jsonText), context))
}
