import { createHash, timingSafeEqual } from 'node:crypto'
import type { AuthScheme, Endpoint, Project } from '../model.ts'
import { parseCookies } from './request-facts.ts'

/**
 * One credential a request must carry. The configured schemes (`AuthScheme`) check listed values;
 * the presence-only forms are what an imported OpenAPI operation's `security` asks for, where any
 * non-empty value passes (as Prism does).
 */
export type AuthRequirement =
  | AuthScheme
  | { type: 'present'; in: 'header' | 'query' | 'cookie'; name: string }
  /** `Authorization: <scheme> <credentials>`, any credentials (OpenAPI http schemes, oauth2, openIdConnect). */
  | { type: 'http'; scheme: string }

/** What a request carries, as the check reads it. */
export interface Credentials {
  headers: Headers
  query: URLSearchParams
}

export type AuthVerdict =
  | { ok: true }
  | { ok: false; status: 401 | 403; message: string; challenges: string[] }

const REALM = 'realm="mockapi"'

/** Listed secrets are compared over their SHA-256 digests, in constant time whatever their lengths. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

function listed(value: string, allowed: readonly string[]): boolean {
  const given = digest(value)
  let found = false
  // Every listed value is compared, so the time says nothing about which one matched.
  for (const candidate of allowed) if (timingSafeEqual(given, digest(candidate))) found = true
  return found
}

/** `Authorization: <scheme> <rest>`, the scheme case-insensitive; the rest trimmed, null when absent or empty. */
function authorization(headers: Headers, scheme: string): string | null {
  const header = headers.get('authorization')
  if (header === null) return null
  const space = header.indexOf(' ')
  if (space <= 0 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return null
  const rest = header.slice(space + 1).trim()
  return rest === '' ? null : rest
}

/** Read as conditions read cookies (quotes stripped, decoded), so a rule and the auth check agree. */
function cookie(headers: Headers, name: string): string | null {
  const cookies = parseCookies(headers.get('cookie'))
  return Object.hasOwn(cookies, name) ? cookies[name]! : null
}

/** A header name that is not an HTTP token (a spec's "api key") cannot be sent: `Headers.get` throws on it. */
function header(headers: Headers, name: string): string | null {
  try {
    return headers.get(name)
  } catch {
    return null
  }
}

function placed(credentials: Credentials, where: 'header' | 'query' | 'cookie', name: string): string | null {
  const value = where === 'header' ? header(credentials.headers, name) : where === 'query' ? credentials.query.get(name) : cookie(credentials.headers, name)
  return value === null || value.trim() === '' ? null : value
}

/** `user:password` from `Authorization: Basic base64(…)`; null when absent or not that shape. */
function basicUser(headers: Headers): { user: string; password: string } | null {
  const encoded = authorization(headers, 'Basic')
  if (encoded === null || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) return null
  const decoded = Buffer.from(encoded, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

export function challengeOf(requirement: AuthRequirement): string {
  switch (requirement.type) {
    case 'bearer': return `Bearer ${REALM}`
    case 'basic': return `Basic ${REALM}, charset="UTF-8"`
    case 'http': return `${requirement.scheme} ${REALM}`
    default: return `ApiKey ${REALM}, in="${requirement.in}", name="${requirement.name}"`
  }
}

/** How a client sends the credential, for the 401's message. */
export function describeRequirement(requirement: AuthRequirement): string {
  switch (requirement.type) {
    case 'bearer': return 'Authorization: Bearer <token>'
    case 'basic': return 'Authorization: Basic <base64 user:password>'
    case 'http': return `Authorization: ${requirement.scheme} <credentials>`
    default: return requirement.in === 'header' ? `header ${requirement.name}` : requirement.in === 'query' ? `query parameter ${requirement.name}` : `cookie ${requirement.name}`
  }
}

type Outcome = 'missing' | 'refused' | 'passed'

function checkOne(requirement: AuthRequirement, credentials: Credentials): Outcome {
  switch (requirement.type) {
    case 'bearer': {
      const token = authorization(credentials.headers, 'Bearer')
      if (token === null) return 'missing'
      return requirement.tokens === undefined || listed(token, requirement.tokens) ? 'passed' : 'refused'
    }
    case 'basic': {
      const given = basicUser(credentials.headers)
      if (given === null) return 'missing'
      const password = Object.hasOwn(requirement.users, given.user) ? requirement.users[given.user]! : null
      // The password is compared even for an unknown user, so the time does not say which users exist.
      const matches = listed(given.password, [password ?? ''])
      return password !== null && matches ? 'passed' : 'refused'
    }
    case 'http':
      return authorization(credentials.headers, requirement.scheme) === null ? 'missing' : 'passed'
    case 'present':
      return placed(credentials, requirement.in, requirement.name) === null ? 'missing' : 'passed'
    case 'apiKey': {
      const key = placed(credentials, requirement.in, requirement.name)
      if (key === null) return 'missing'
      return requirement.keys === undefined || listed(key, requirement.keys) ? 'passed' : 'refused'
    }
  }
}

/**
 * The outer list ORs, an inner list ANDs (OpenAPI's `security`); configured schemes are one
 * alternative each. Some alternative whose credentials are all present and accepted passes; else,
 * if some alternative had all its credentials present (a listed value was wrong), 403; else 401
 * with one challenge per scheme asked for. An empty outer list asks for nothing.
 */
export function checkAuth(alternatives: readonly (readonly AuthRequirement[])[], credentials: Credentials): AuthVerdict {
  if (alternatives.length === 0) return { ok: true }
  let refused: AuthRequirement | null = null
  for (const alternative of alternatives) {
    const outcomes = alternative.map((requirement) => checkOne(requirement, credentials))
    if (outcomes.every((outcome) => outcome === 'passed')) return { ok: true }
    if (refused === null && !outcomes.includes('missing')) refused = alternative[outcomes.indexOf('refused')]!
  }
  if (refused !== null) {
    return { ok: false, status: 403, challenges: [], message: `credentials not accepted: the ${describeRequirement(refused)} sent is not one this endpoint takes` }
  }
  const requirements = alternatives.flat()
  const challenges = [...new Set(requirements.map(challengeOf))]
  const ways = [...new Set(requirements.map(describeRequirement))]
  return { ok: false, status: 401, challenges, message: `missing credentials: send ${ways.join(', or ')}` }
}

/** Where the credentials an endpoint demands come from. */
export type AuthSource = 'endpoint' | 'openapi' | 'project' | 'none'

export interface EffectiveAuth {
  source: AuthSource
  /** Alternatives that OR, each a list that ANDs; empty: public. */
  requirements: AuthRequirement[][]
}

const eachAlone = (schemes: readonly AuthScheme[]): AuthRequirement[][] => schemes.map((scheme) => [scheme])

/**
 * What a request to `endpoint` must show: the endpoint's own auth (`none`: nothing); else, while the
 * project enforces OpenAPI security, what its spec's operation documents (`documented`, asked only
 * then); else the project's auth; else nothing.
 */
export function effectiveAuth(
  project: Pick<Project, 'auth' | 'openapiSecurity'>,
  endpoint: Pick<Endpoint, 'auth'>,
  documented: (() => AuthRequirement[][] | null) | null,
): EffectiveAuth {
  if (endpoint.auth === 'none') return { source: 'endpoint', requirements: [] }
  if (endpoint.auth !== null) return { source: 'endpoint', requirements: eachAlone(endpoint.auth) }
  const fromSpec = project.openapiSecurity && documented ? documented() : null
  if (fromSpec !== null) return { source: 'openapi', requirements: fromSpec }
  return project.auth ? { source: 'project', requirements: eachAlone(project.auth) } : { source: 'none', requirements: [] }
}

/** One line for `endpoint show`, the API and the dashboard: `bearer, any token (project)`, `none (endpoint)`. */
export function describeEffectiveAuth(auth: EffectiveAuth): string {
  if (auth.requirements.length === 0) return auth.source === 'none' ? 'none' : `none (${auth.source})`
  const one = (requirement: AuthRequirement): string => {
    switch (requirement.type) {
      case 'bearer': return requirement.tokens ? `bearer, ${requirement.tokens.length} listed token${requirement.tokens.length === 1 ? '' : 's'}` : 'bearer, any token'
      case 'basic': return `basic, ${Object.keys(requirement.users).length} user${Object.keys(requirement.users).length === 1 ? '' : 's'}`
      case 'apiKey': return `apiKey in ${requirement.in} ${requirement.name}${requirement.keys ? `, ${requirement.keys.length} listed key${requirement.keys.length === 1 ? '' : 's'}` : ', any key'}`
      case 'present': return `${requirement.name} in ${requirement.in}`
      case 'http': return `Authorization: ${requirement.scheme}`
    }
  }
  const alternatives = auth.requirements.map((alternative) => alternative.map(one).join(' and ')).join(' | ')
  return `${alternatives} (${auth.source})`
}
