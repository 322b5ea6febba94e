import { checkAuth, effectiveAuth, type AuthRequirement } from '../../engine/auth-check.ts'
import type { MockAnswer, MockRequest } from '../../engine/exchange.ts'
import { AppError } from '../../errors.ts'
import { kindOf } from '../../kinds/registry.ts'
import type { Endpoint, Project, SpecDocument } from '../../model.ts'

/** What a request to `endpoint` must show (`effectiveAuth`), its spec read through its kind. */
export function endpointAuth(project: Project, endpoint: Endpoint, spec: (() => SpecDocument) | null): AuthRequirement[][] {
  const { security } = kindOf(endpoint.kind)
  return effectiveAuth(project, endpoint, security && spec ? () => security(spec(), endpoint) : null).requirements
}

/** What a GraphQL schema or SOAP service demands per HTTP request: the project's auth. */
export function mountAuth(project: Project): AuthRequirement[][] {
  return project.auth ? project.auth.map((scheme) => [scheme]) : []
}

/**
 * auth: before any other stage, so a refusal neither reads the body nor draws an error rate. Missing
 * credentials → 401 with a challenge per scheme; a listed value not accepted → 403.
 */
export function authStage(request: MockRequest, requirements: AuthRequirement[][]): AppError | null {
  const verdict = checkAuth(requirements, { headers: request.headers, query: request.url.searchParams })
  if (verdict.ok) return null
  if (verdict.status === 403) return new AppError('FORBIDDEN', verdict.message)
  return new AppError('UNAUTHORIZED', verdict.message, { headers: { 'WWW-Authenticate': verdict.challenges.join(', ') } })
}

/**
 * A refusal answered as the endpoint's spec documents it (an OpenAPI operation's 401 or 403), its
 * challenge kept unless the documented headers give one; null: the refusal is answered as it is.
 */
export async function documentedRefusal(request: MockRequest, endpoint: Endpoint, spec: (() => SpecDocument) | null, refusal: AppError): Promise<MockAnswer | null> {
  const { authRefusal } = kindOf(endpoint.kind)
  if (!authRefusal || !spec || (refusal.status !== 401 && refusal.status !== 403)) return null
  const documented = await authRefusal(spec(), endpoint, refusal.status, request.headers.get('accept'))
  if (!documented) return null
  const challenged = Object.keys(documented.headers).some((name) => name.toLowerCase() === 'www-authenticate')
  return challenged || !refusal.headers ? documented : { ...documented, headers: { ...refusal.headers, ...documented.headers } }
}
