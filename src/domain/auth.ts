import { createHmac } from 'node:crypto'
import { AppError } from '../errors.ts'
import type { Project } from '../model.ts'
import type { Context } from './context.ts'

export interface TokenClaims {
  sub: string
  /** When set, the token works for this project only. */
  projectId?: number
}

const ALGORITHM = 'HS256'

function signingKey(context: Context): Uint8Array {
  const secret = context.repos.meta.get('jwt_secret')
  if (!secret) throw new AppError('INTERNAL', 'this database has no signing secret')
  return Buffer.from(secret, 'hex')
}

/** The claim binding a project-scoped token to its project's key, so it dies with that project. */
const PROJECT_KEY_CLAIM = 'projectKey'

export async function mintToken(context: Context, options: { projectId?: number; expiresInMs: number; subject?: string }): Promise<string> {
  let claims = {}
  if (options.projectId !== undefined) {
    const key = context.repos.projects.tokenKey(options.projectId)
    if (key === undefined) throw new AppError('PROJECT_NOT_FOUND', `no project with id "${options.projectId}"`)
    claims = { projectId: options.projectId, [PROJECT_KEY_CLAIM]: key }
  }
  const nowSeconds = Math.floor(context.clock.now().getTime() / 1000)
  const payload = { ...claims, sub: options.subject ?? 'mockapi-cli', iat: nowSeconds, exp: nowSeconds + Math.ceil(options.expiresInMs / 1000) }
  // An HS256 JWS is an HMAC-SHA256 over its two base64url parts: signed here, not by jose, because
  // `serve` mints the dashboard's token as it starts, and loading jose (and importing its key
  // through WebCrypto) held up the first answer; tokens are still verified by jose.
  const signed = `${base64url(JSON.stringify({ alg: ALGORITHM, typ: 'JWT' }))}.${base64url(JSON.stringify(payload))}`
  return `${signed}.${createHmac('sha256', signingKey(context)).update(signed).digest('base64url')}`
}

const base64url = (text: string) => Buffer.from(text).toString('base64url')

// jose loads with the first token to verify: a server that is never asked to does not pay for it.
const loadJose = () => import('jose')

function reason(error: unknown, errors: typeof import('jose').errors): string {
  if (error instanceof errors.JWTExpired) return 'the token has expired'
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the token is not signed with HS256'
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the token signature does not match this database'
  if (error instanceof errors.JWTClaimValidationFailed) return `the token claim "${error.claim}" is not valid (${error.reason})`
  return 'the token is malformed'
}

/** Checks an `Authorization: Bearer …` header against this database's secret. */
export async function verifyBearer(context: Context, header: string | null): Promise<TokenClaims> {
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header.trim()) : null
  if (!match) throw new AppError('UNAUTHORIZED', 'an "Authorization: Bearer <token>" header is required; get a token with "mockapi token"')
  const { jwtVerify, errors } = await loadJose()
  try {
    const { payload } = await jwtVerify(match[1]!, signingKey(context), {
      algorithms: [ALGORITHM],
      requiredClaims: ['exp', 'iat', 'sub'],
      currentDate: context.clock.now(),
    })
    const projectId = payload.projectId
    if (projectId !== undefined && (typeof projectId !== 'number' || !Number.isInteger(projectId))) {
      throw new AppError('UNAUTHORIZED', 'the token claim "projectId" must be an integer')
    }
    // 401, not 403 or 404: the credential itself is dead (as if expired), whatever it is used for.
    const projectKey = payload[PROJECT_KEY_CLAIM]
    if (projectId !== undefined && (typeof projectKey !== 'string' || projectKey !== context.repos.projects.tokenKey(projectId))) {
      throw new AppError('UNAUTHORIZED', 'the token\'s project has been deleted (or the token predates project-bound tokens); get a new one with "mockapi token --project <slug>"')
    }
    return { sub: payload.sub!, ...(projectId === undefined ? {} : { projectId }) }
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError('UNAUTHORIZED', reason(error, errors))
  }
}

/** The project a verified token may act on: unknown id → 404, another project's token → 403. */
export function authorizeProject(context: Context, claims: TokenClaims, projectIdParam: string): Project {
  const id = /^[1-9][0-9]{0,15}$/.test(projectIdParam) ? Number(projectIdParam) : NaN
  const project = Number.isSafeInteger(id) ? context.repos.projects.byId(id) : undefined
  if (!project) throw new AppError('PROJECT_NOT_FOUND', `no project with id "${projectIdParam}"`)
  if (claims.projectId !== undefined && claims.projectId !== project.id) {
    throw new AppError('FORBIDDEN', `this token is limited to project ${claims.projectId}`)
  }
  return project
}
