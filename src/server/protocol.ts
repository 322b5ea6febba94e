import type { H3Event } from 'h3'
import type { Endpoint } from '../model.ts'
import type { PolicyDecision, Random } from './pipeline/policy.ts'

/** What a GraphQL or SOAP request reports besides its response: the operation answered, and whether it failed. */
export interface ProtocolAnswer {
  response: Response
  endpointId: number | null
  failed: boolean
}

export interface ProtocolContext {
  bodyLimit: number
  /** Draws the error-rate dice. */
  random: Random
}

/**
 * What an operation's policy decision and settings say instead of a generated answer: a simulated
 * error (drawn, or a configured error status, which an operation cannot answer with data), else
 * its fixed value.
 */
export function operationOverride(endpoint: Endpoint, decision: PolicyDecision): { value?: unknown; error?: string } | undefined {
  const { outcome } = decision
  if (outcome.kind === 'simulated-error') return { error: `simulated error (${outcome.reason})` }
  if (outcome.status >= 400) return { error: `simulated ${outcome.status} (configured status)` }
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
