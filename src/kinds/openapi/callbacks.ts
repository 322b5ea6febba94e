/**
 * OpenAPI 3 `callbacks`: the requests an operation's answer sets off. Each callback's key is a
 * runtime expression (`{$request.body#/callbackUrl}`, or one inside a string) resolved against the
 * request and the answer; each operation of its path item is one request, its body generated from
 * that operation's request body (its example, else its schema) and its header parameters.
 */
import { targetUrlProblem } from '../../engine/target-url.ts'
import type { CallbackRequest } from '../../model.ts'
import { isJsonish, isXml } from './media.ts'
import { derefPointer, escapePointer, isObj, mergedParameterPointers, resolvePointer } from './pointer.ts'
import type { Sampler } from './sample.ts'
import type { SpecDocument } from './types.ts'
import { writeXml } from './xml.ts'

/** What runtime expressions read: the request as received and the answer as sent. */
export interface CallbackRuntime {
  url: URL
  method: string
  params: Record<string, string>
  query: URLSearchParams
  headers: Headers
  /** The request body as validated: parsed JSON or form fields, raw bytes, or undefined. */
  body: unknown
  status: number
  responseHeaders: Record<string, string>
  responseBody: string | Uint8Array | null
}

export interface CallbackRequests {
  requests: CallbackRequest[]
  /** One line per callback not sent, and why (an expression that resolves to nothing, a URL refused). */
  skipped: string[]
}

// TRACE is left out: fetch refuses to send it.
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const

/** The part of a callback request that depends on the spec only: generated once per callback operation. */
interface CallbackShape {
  headers: Record<string, string>
  body: string | null
}

function _text(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return null
}

function _headerText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function _responseJson(body: string | Uint8Array | null): unknown {
  if (body === null) return undefined
  try {
    return JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

function _headerOf(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase()
  return Object.entries(headers).find(([key]) => key.toLowerCase() === lower)?.[1]
}

/** The value of one runtime expression (`$request.query.cb`); undefined when it names nothing. */
export function evaluateExpression(expression: string, runtime: CallbackRuntime): unknown {
  if (expression === '$url') return runtime.url.href
  if (expression === '$method') return runtime.method
  if (expression === '$statusCode') return runtime.status
  const match = /^\$(request|response)\.(path|query|header|body)(?:\.(.+)|(#.*))?$/.exec(expression)
  if (!match) return undefined
  const [, side, source, name, fragment] = match
  if (source === 'body') {
    if (name !== undefined) return undefined
    const body = side === 'request' ? runtime.body : _responseJson(runtime.responseBody)
    if (body instanceof Uint8Array) return undefined
    if (fragment === undefined || fragment === '#') return body
    let pointer: string
    try {
      pointer = decodeURIComponent(fragment.slice(1))
    } catch {
      return undefined
    }
    return pointer.startsWith('/') ? resolvePointer(body, pointer) : undefined
  }
  if (name === undefined) return undefined
  if (side === 'response') return source === 'header' ? _headerOf(runtime.responseHeaders, name) : undefined
  if (source === 'path') return Object.hasOwn(runtime.params, name) ? runtime.params[name] : undefined
  if (source === 'query') return runtime.query.get(name) ?? undefined
  return runtime.headers.get(name) ?? undefined
}

/**
 * A callback key: one expression (`$request.body#/url`) or a string with `{expression}`s in it.
 * Returns the URL, or why there is none.
 */
export function resolveCallbackUrl(key: string, runtime: CallbackRuntime): { url: string } | { problem: string } {
  const parts: string[] = []
  const template = key.startsWith('$') ? `{${key}}` : key
  let last = 0
  for (const found of template.matchAll(/\{([^{}]*)\}/g)) {
    const expression = found[1]!
    parts.push(template.slice(last, found.index))
    last = found.index + found[0].length
    if (!expression.startsWith('$')) {
      parts.push(found[0])
      continue
    }
    const value = _text(evaluateExpression(expression, runtime))
    if (value === null || value === '') return { problem: `${expression} resolves to nothing` }
    parts.push(value)
  }
  parts.push(template.slice(last))
  return { url: parts.join('') }
}

/** Builds the callback requests of an operation's answer, each callback operation's shape generated once. */
export function createCallbackBuilder(spec: SpecDocument, sampler: Sampler) {
  const { document } = spec
  const shapes = new Map<string, CallbackShape>()

  const exampleAt = (pointer: string): unknown => {
    const node = resolvePointer(document, pointer)
    if (!isObj(node)) return undefined
    if (node.example !== undefined) return node.example
    if (isObj(node.examples)) {
      for (const key of Object.keys(node.examples)) {
        const example = derefPointer(document, `${pointer}/examples/${escapePointer(key)}`)
        const value = example === null ? undefined : resolvePointer(document, example)
        if (isObj(value) && value.value !== undefined) return value.value
      }
    }
    return undefined
  }

  const sampleAt = (pointer: string): unknown => (isObj(resolvePointer(document, `${pointer}/schema`)) ? sampler.json(`${pointer}/schema`) : undefined)

  const shapeOf = (itemPointer: string, operationPointer: string): CallbackShape => {
    const headers: Record<string, string> = {}
    for (const pointer of mergedParameterPointers(document, itemPointer, operationPointer)) {
      const parameter = resolvePointer(document, pointer) as Record<string, unknown>
      if (parameter.in !== 'header' || typeof parameter.name !== 'string') continue
      const value = exampleAt(pointer) ?? sampleAt(pointer)
      if (value !== undefined && value !== null) headers[parameter.name.toLowerCase()] = _headerText(value)
    }
    const requestBody = resolvePointer(document, `${operationPointer}/requestBody`) === undefined ? null : derefPointer(document, `${operationPointer}/requestBody`)
    const content = requestBody === null ? undefined : resolvePointer(document, `${requestBody}/content`)
    const types = isObj(content) ? Object.keys(content) : []
    const type = types.find(isJsonish) ?? types[0]
    if (type === undefined) return { headers, body: null }
    const media = `${requestBody}/content/${escapePointer(type)}`
    const example = exampleAt(media)
    const json = isJsonish(type)
    let body: string | null
    if (example !== undefined) body = typeof example === 'string' && !json ? example : JSON.stringify(example)
    else if (isXml(type) && isObj(resolvePointer(document, `${media}/schema`))) body = writeXml(document, `${media}/schema`, sampler.json(`${media}/schema`))
    else {
      const sampled = sampleAt(media)
      body = sampled === undefined ? null : typeof sampled === 'string' && !json ? sampled : JSON.stringify(sampled)
    }
    if (body !== null) headers['content-type'] = type === '*/*' ? 'application/json' : type
    return { headers, body }
  }

  const shape = (itemPointer: string, operationPointer: string): CallbackShape => {
    let found = shapes.get(operationPointer)
    if (!found) {
      found = shapeOf(itemPointer, operationPointer)
      shapes.set(operationPointer, found)
    }
    return found
  }

  return (operationPointer: string, runtime: CallbackRuntime): CallbackRequests => {
    const result: CallbackRequests = { requests: [], skipped: [] }
    const callbacks = resolvePointer(document, `${operationPointer}/callbacks`)
    if (spec.version === '2.0' || !isObj(callbacks)) return result
    for (const name of Object.keys(callbacks)) {
      const callbackPointer = derefPointer(document, `${operationPointer}/callbacks/${escapePointer(name)}`)
      const callback = callbackPointer === null ? undefined : resolvePointer(document, callbackPointer)
      if (!isObj(callback)) continue
      for (const key of Object.keys(callback)) {
        if (key.startsWith('x-')) continue
        const itemPointer = derefPointer(document, `${callbackPointer}/${escapePointer(key)}`)
        const item = itemPointer === null ? undefined : resolvePointer(document, itemPointer)
        if (!isObj(item)) continue
        const label = `${name} ${key}`
        const resolved = resolveCallbackUrl(key, runtime)
        const problem = 'problem' in resolved ? resolved.problem : targetUrlProblem(resolved.url)
        if (problem !== null || !('url' in resolved)) {
          result.skipped.push(`callback ${label} not sent: ${'url' in resolved ? `URL ${problem}` : problem}`)
          continue
        }
        for (const method of METHODS) {
          if (!isObj(item[method])) continue
          const { headers, body } = shape(itemPointer!, `${itemPointer}/${method}`)
          // A GET or HEAD carries no body (fetch refuses one), whatever the spec says.
          const bodiless = method === 'get' || method === 'head'
          const { 'content-type': _type, ...rest } = headers
          result.requests.push({ name: label, url: new URL(resolved.url).href, method: method.toUpperCase(), headers: bodiless ? rest : { ...headers }, body: bodiless ? null : body })
        }
      }
    }
    return result
  }
}
