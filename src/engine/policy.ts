import type { Endpoint } from '../model.ts'
import type { Preferences } from './prefer.ts'

/** The settings of an endpoint (or a GraphQL field, SOAP operation, gRPC method) that the policy reads. */
export interface PolicySettings {
  status: number
  delayMs: number
  /** Percentage 0–100 of calls answered with `errorStatus` instead. */
  errorRate: number
  errorStatus: number
}

export interface PolicyInput {
  settings: PolicySettings
  /** What the request asked for (`Prefer`); `{}` for transports that have no such header. */
  prefer: Preferences
}

/**
 * What to do before answering. A transport applies it its own way (a JSON error body, a GraphQL
 * error entry, a SOAP Fault, a gRPC status); only the decision is shared.
 */
export interface PolicyDecision {
  /** How long to hold the answer. */
  delayMs: number
  outcome:
    /** Answer with this status: the preferred one, else the configured one. */
    | { kind: 'answer'; status: number }
    /** Fail instead: the client preferred an error status, or the error rate's draw hit. */
    | { kind: 'simulated-error'; status: number; cause: 'prefer' | 'error-rate'; reason: string }
}

/** For transports without a `Prefer` header (GraphQL, SOAP, gRPC): the endpoint's settings alone decide. */
export const NO_PREFERENCES: Readonly<Preferences> = Object.freeze({})

/** Draws a number in [0, 1): Math.random, or the seeded generator of `serve --seed`. */
export type Random = () => number

/**
 * Delay, `Prefer` and the error rate, decided once for every transport. A preferred code is what
 * the client asked for, so it is answered as asked: the error rate is drawn only without one.
 */
export function decidePolicy(input: PolicyInput, random: Random): PolicyDecision {
  const { settings, prefer } = input
  const delayMs = prefer.delayMs ?? settings.delayMs
  if (prefer.code !== undefined) {
    return prefer.code >= 400
      ? { delayMs, outcome: { kind: 'simulated-error', status: prefer.code, cause: 'prefer', reason: 'Prefer: code' } }
      : { delayMs, outcome: { kind: 'answer', status: prefer.code } }
  }
  if (settings.errorRate > 0 && random() * 100 < settings.errorRate) {
    return { delayMs, outcome: { kind: 'simulated-error', status: settings.errorStatus, cause: 'error-rate', reason: `error rate ${settings.errorRate} %` } }
  }
  return { delayMs, outcome: { kind: 'answer', status: settings.status } }
}

/**
 * What an operation's decision and settings say instead of a generated answer (GraphQL, SOAP): a
 * simulated error, drawn or a configured error status (an operation cannot carry data with one),
 * else its fixed value.
 */
export function operationOverride(endpoint: Endpoint, decision: PolicyDecision): { value?: unknown; error?: string } | undefined {
  const { outcome } = decision
  if (outcome.kind === 'simulated-error') return { error: `simulated error (${outcome.reason})` }
  if (outcome.status >= 400) return { error: `simulated ${outcome.status} (configured status)` }
  if (endpoint.body !== null) return { value: JSON.parse(endpoint.body) as unknown }
  return undefined
}
