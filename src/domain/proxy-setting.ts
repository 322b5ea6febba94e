import { compileSafeRegex, UnsafePatternError } from '../engine/safe-regex.ts'
import { proxyTargetProblem } from '../engine/target-url.ts'
import { isConnectionHeader } from '../engine/proxy-headers.ts'
import { AppError } from '../errors.ts'
import type { ProxySetting } from '../model.ts'
import { isObject } from '../engine/json-input.ts'

const FIELDS = ['target', 'headers', 'pathRewrite']
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/

function refuse(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `${field} ${message}`, { details: [{ field, message }] })
}

/** A map of one-line strings, each key checked by `checkKey`. */
function stringMap(value: unknown, field: string, checkKey: (key: string) => void): Record<string, string> {
  if (value === undefined || value === null) return {}
  if (!isObject(value)) refuse(field, 'must be an object of strings')
  for (const [key, entry] of Object.entries(value)) {
    checkKey(key)
    if (typeof entry !== 'string' || /[\r\n]/.test(entry)) refuse(`${field}.${key}`, 'must be a one-line string')
  }
  return value as Record<string, string>
}

/**
 * A project's `proxy` as sent (API), typed (CLI) or written (project file): `{target, headers?,
 * pathRewrite?}` or null to clear. Only http(s) targets without credentials; header names valid;
 * each pathRewrite key a pattern RE2 runs.
 */
export function checkProxySetting(value: unknown, field = 'proxy'): ProxySetting | null {
  if (value === null) return null
  if (!isObject(value)) refuse(field, 'must be an object {target, headers, pathRewrite}, or null')
  const unknown = Object.keys(value).find((key) => !FIELDS.includes(key))
  if (unknown !== undefined) refuse(`${field}.${unknown}`, `is not a proxy setting; give any of ${FIELDS.join(', ')}`)
  if (typeof value.target !== 'string') refuse(`${field}.target`, 'must be an http(s) URL')
  const problem = proxyTargetProblem(value.target)
  if (problem) refuse(`${field}.target`, problem)
  const headers = stringMap(value.headers, `${field}.headers`, (name) => {
    if (!HEADER_NAME.test(name)) refuse(`${field}.headers`, `"${name}" is not a valid HTTP header name`)
    if (isConnectionHeader(name)) refuse(`${field}.headers`, `"${name}" belongs to the connection, not the request: the proxy sets Host to the target's and drops hop-by-hop headers`)
  })
  const pathRewrite = stringMap(value.pathRewrite, `${field}.pathRewrite`, (pattern) => {
    try {
      compileSafeRegex(pattern)
    } catch (error) {
      if (error instanceof UnsafePatternError) refuse(`${field}.pathRewrite`, error.message)
      throw error
    }
  })
  return { target: value.target, headers: { ...headers }, pathRewrite: { ...pathRewrite } }
}
