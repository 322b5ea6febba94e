/** What a recording never stores: credentials in headers, query parameters and proxy targets. */

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'set-cookie2', 'x-api-key'])
const SECRET_WORDS = /token|secret|key|auth|session|passw|credential|signature/i
// A challenge, not a credential: a recorded 401 needs it to be answered as the real API does.
const CHALLENGES = new Set(['www-authenticate'])

/** Whether a header or query parameter of this name may carry a credential: never stored. */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase()
  return !CHALLENGES.has(lower) && (SECRET_HEADERS.has(lower) || SECRET_WORDS.test(lower))
}

/** A proxy target as it may be stored: no user info, no query parameter named like a secret. */
export function withoutSecrets(target: string): string {
  if (!URL.canParse(target)) return target
  const url = new URL(target)
  url.username = ''
  url.password = ''
  for (const name of [...url.searchParams.keys()]) if (isSecretName(name)) url.searchParams.delete(name)
  return url.toString()
}
