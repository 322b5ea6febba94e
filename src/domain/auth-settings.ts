import { describeEffectiveAuth, effectiveAuth } from '../engine/auth-check.ts'
import { AppError } from '../errors.ts'
import { kindOf } from '../kinds/registry.ts'
import type { AuthScheme, Endpoint, EndpointAuth, Project, SpecDocument, SpecVersion } from '../model.ts'
import type { Context } from './context.ts'

/*
 * The auth settings of a project or an endpoint, checked in one place whoever sends them (the CLI's
 * `--auth`, the management API, a project file, the dashboard). A refusal names the field.
 */

const MAX_VALUE = 4096
const MAX_LISTED = 1000
const MAX_SCHEMES = 10
const TOKEN_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/
const SCHEME_KEYS: Record<AuthScheme['type'], readonly string[]> = {
  bearer: ['type', 'tokens'],
  apiKey: ['type', 'in', 'name', 'keys'],
  basic: ['type', 'users'],
}
const PLACES = ['header', 'query', 'cookie'] as const

function refuse(field: string, message: string): never {
  throw new AppError('INVALID_INPUT', `${field} ${message}`, { details: [{ field, message }] })
}

function checkSecret(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') refuse(field, 'must be a non-empty string')
  if (value.length > MAX_VALUE) refuse(field, `must be at most ${MAX_VALUE} characters`)
  if (/[\u0000-\u001f\u007f]/.test(value)) refuse(field, 'must be one line, without control characters')
  if (value.trim() !== value) refuse(field, 'must not start or end with a space (a client could not send it)')
  return value
}

function checkList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0) refuse(field, 'must be a non-empty list (leave it out to accept any value)')
  if (value.length > MAX_LISTED) refuse(field, `must list at most ${MAX_LISTED} values`)
  return value.map((item, index) => checkSecret(item, `${field}[${index}]`))
}

function checkScheme(raw: unknown, field: string): AuthScheme {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) refuse(field, 'must be an object with a type: bearer, apiKey or basic')
  const fields = raw as Record<string, unknown>
  const type = fields.type
  if (type !== 'bearer' && type !== 'apiKey' && type !== 'basic') refuse(`${field}.type`, `must be one of bearer, apiKey, basic, got ${JSON.stringify(type) ?? 'nothing'}`)
  const unknown = Object.keys(fields).find((key) => !SCHEME_KEYS[type].includes(key))
  if (unknown !== undefined) refuse(`${field}.${unknown}`, `is not a setting of ${type} auth; it takes ${SCHEME_KEYS[type].join(', ')}`)
  if (type === 'bearer') return fields.tokens === undefined ? { type } : { type, tokens: checkList(fields.tokens, `${field}.tokens`) }
  if (type === 'apiKey') {
    const place = fields.in
    if (!PLACES.includes(place as (typeof PLACES)[number])) refuse(`${field}.in`, `must be one of ${PLACES.join(', ')}`)
    const name = fields.name
    if (typeof name !== 'string' || !TOKEN_NAME.test(name)) refuse(`${field}.name`, `must be a ${place} name of letters, digits and !#$%&'*+.^_\`|~- (1 to 256)`)
    const scheme: AuthScheme = { type, in: place as (typeof PLACES)[number], name }
    return fields.keys === undefined ? scheme : { ...scheme, keys: checkList(fields.keys, `${field}.keys`) }
  }
  const users = fields.users
  if (users === null || typeof users !== 'object' || Array.isArray(users) || Object.keys(users).length === 0) {
    refuse(`${field}.users`, 'must map at least one user name to its password')
  }
  const entries = Object.entries(users as Record<string, unknown>)
  if (entries.length > MAX_LISTED) refuse(`${field}.users`, `must list at most ${MAX_LISTED} users`)
  const checked: Record<string, string> = {}
  for (const [user, password] of entries) {
    checkSecret(user, `${field}.users`)
    if (user.includes(':')) refuse(`${field}.users`, `user name "${user}" must not contain ":" (Basic auth splits on it)`)
    Object.defineProperty(checked, user, { value: checkSecret(password, `${field}.users.${user}`), enumerable: true, writable: true, configurable: true })
  }
  return { type, users: checked }
}

/** A project's `auth`: a scheme or a list of them (any one passes); null clears. */
export function checkAuthSetting(raw: unknown, field = 'auth'): AuthScheme[] | null {
  if (raw === null) return null
  const list = Array.isArray(raw) ? raw : [raw]
  if (list.length === 0) refuse(field, 'must name at least one scheme (null for none)')
  if (list.length > MAX_SCHEMES) refuse(field, `must list at most ${MAX_SCHEMES} schemes`)
  return list.map((scheme, index) => checkScheme(scheme, Array.isArray(raw) ? `${field}[${index}]` : field))
}

/** An endpoint's `auth`: `none` (public), a scheme or a list, or null (the project's). */
export function checkEndpointAuth(raw: unknown, field = 'auth'): EndpointAuth {
  if (raw === 'none') return 'none'
  if (typeof raw === 'string') refuse(field, `must be none, a scheme or a list of schemes, got "${raw}"`)
  return checkAuthSetting(raw, field)
}

/**
 * The CLI's `--auth`: `bearer`, `bearer:t1,t2`, `apiKey:header:X-API-Key[:k1,k2]` (or `query`,
 * `cookie`), `basic:admin:secret[,user:pass]`, or JSON; several `--auth` are alternatives.
 * `none` (an endpoint only) and `inherit` (null) stand alone.
 */
export function parseAuthFlags(values: readonly string[], field = '--auth'): EndpointAuth {
  if (values.length === 1 && values[0] === 'none') return 'none'
  if (values.length === 1 && values[0] === 'inherit') return null
  if (values.includes('none') || values.includes('inherit')) refuse(field, 'none and inherit stand alone')
  return checkAuthSetting(values.flatMap((value) => shorthand(value, field)), 'auth')
}

function shorthand(text: string, field: string): unknown[] {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(trimmed)
    } catch (error) {
      refuse(field, `is not valid JSON: ${(error as Error).message}`)
    }
    return Array.isArray(parsed) ? parsed : [parsed]
  }
  const [type, ...rest] = trimmed.split(':')
  const listOf = (value: string | undefined) => (value === undefined ? undefined : value.split(','))
  if (type === 'bearer') return [{ type, ...(rest.length ? { tokens: listOf(rest.join(':')) } : {}) }]
  if (type === 'apiKey') {
    if (rest.length < 2) refuse(field, `"${text}": write apiKey:header:X-API-Key (or query, cookie), then :key1,key2 to list keys`)
    const [place, name, ...keys] = rest
    return [{ type, in: place, name, ...(keys.length ? { keys: listOf(keys.join(':')) } : {}) }]
  }
  if (type === 'basic') {
    if (rest.length < 2) refuse(field, `"${text}": write basic:user:password[,user2:password2]`)
    const users: Record<string, string> = {}
    for (const pair of rest.join(':').split(',')) {
      const colon = pair.indexOf(':')
      if (colon <= 0) refuse(field, `"${pair}" must be user:password`)
      Object.defineProperty(users, pair.slice(0, colon), { value: pair.slice(colon + 1), enumerable: true, writable: true, configurable: true })
    }
    return [{ type, users }]
  }
  return refuse(field, `"${text}" must be bearer[:tokens], apiKey:header|query|cookie:NAME[:keys], basic:user:password[,…], none, inherit, or JSON`)
}

/**
 * The effective auth of each endpoint of `project`, described in one line (`endpoint show`, the
 * management API, the dashboard); each spec is parsed once per describer.
 */
export function effectiveAuthOf(context: Context, project: Project): (endpoint: Endpoint) => string {
  const specs = new Map<number, SpecDocument>()
  const specOf = (id: number): SpecDocument => {
    let spec = specs.get(id)
    if (!spec) {
      const stored = context.repos.specs.byId(id)
      spec = { version: (stored?.version ?? '3.0') as SpecVersion, title: stored?.title ?? '', document: stored ? (JSON.parse(stored.document) as Record<string, unknown>) : {} }
      specs.set(id, spec)
    }
    return spec
  }
  return (endpoint) => {
    const { security } = kindOf(endpoint.kind)
    const specId = endpoint.specId
    const documented = security && specId !== null ? () => security(specOf(specId), endpoint) : null
    return describeEffectiveAuth(effectiveAuth(project, endpoint, documented))
  }
}
