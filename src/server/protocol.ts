import type { H3Event } from 'h3'
import type { Endpoint } from '../model.ts'

/** What a GraphQL or SOAP request reports besides its response: the operation answered, and whether it failed. */
export interface ProtocolAnswer {
  response: Response
  endpointId: number | null
  failed: boolean
}

export interface ProtocolContext {
  bodyLimit: number
  /** Draws the error-rate dice. */
  random: () => number
}

/** What an operation's settings say instead of a generated answer: a simulated error, else its fixed value. */
export function operationOverride(endpoint: Endpoint, random: () => number): { value?: unknown; error?: string } | undefined {
  if (endpoint.errorRate > 0 && random() * 100 < endpoint.errorRate) return { error: `simulated error (error rate ${endpoint.errorRate} %)` }
  if (endpoint.status >= 400) return { error: `simulated ${endpoint.status} (configured status)` }
  if (endpoint.body !== null) return { value: JSON.parse(endpoint.body) as unknown }
  return undefined
}

/** Caches what a handler builds from a stored spec, rebuilt when the spec is imported again. */
export function createSpecCache<T>(): (key: { specId: number; importedAt: string }, build: () => T) => T {
  const built = new Map<number, { importedAt: string; value: T }>()
  return (key, build) => {
    const cached = built.get(key.specId)
    if (cached?.importedAt === key.importedAt) return cached.value
    const value = build()
    built.set(key.specId, { importedAt: key.importedAt, value })
    return value
  }
}
