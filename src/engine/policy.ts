import type { Endpoint, Fault } from '../model.ts'
import { delayOf, drawDelay, NO_DELAY, type DelaySpec } from './delay.ts'
import type { Preferences } from './prefer.ts'

/** The settings of an endpoint (or a GraphQL field, SOAP operation, gRPC method) that the policy reads. */
export interface PolicySettings {
  status: number
  delayMs: number
  /** With `delayMs`, a range to draw from; null: fixed. */
  delayMaxMs: number | null
  /** Percentage 0–100 of calls answered with `errorStatus` instead. */
  errorRate: number
  errorStatus: number
  /** A network fault answered instead (the endpoint's, or later a chosen response's). */
  fault: Fault | null
}

export interface PolicyInput {
  settings: PolicySettings
  /** What the request asked for (`Prefer`); `{}` for transports that have no such header. */
  prefer: Preferences
  /** `serve --delay`: no mock answer comes sooner than this (drawn too when a range). */
  floor?: DelaySpec | null | undefined
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
    /** No answer at all: the connection faults (`Prefer: fault=`, or the configured fault). */
    | { kind: 'fault'; fault: Fault; cause: 'prefer' | 'configured' }
}

/** A decision that answers (a fault never reaches the validate and answer stages). */
export interface AnswerDecision {
  delayMs: number
  outcome: Exclude<PolicyDecision['outcome'], { kind: 'fault' }>
}

/** For transports without a `Prefer` header (GraphQL, SOAP, gRPC): the endpoint's settings alone decide. */
export const NO_PREFERENCES: Readonly<Preferences> = Object.freeze({})

/** Draws a number in [0, 1): Math.random, or the seeded generator of `serve --seed`. */
export type Random = () => number

/**
 * The delay to hold: the preferred or configured one, never below the floor. Ranges draw from
 * `random`; fixed delays draw nothing, so seeded runs without ranges repeat as they always did.
 */
export function decideDelay(settings: Pick<PolicySettings, 'delayMs' | 'delayMaxMs'>, prefer: Preferences, floor: DelaySpec | null | undefined, random: Random): number {
  const floorMs = drawDelay(floor ?? NO_DELAY, random)
  return Math.max(floorMs, drawDelay(prefer.delay ?? delayOf(settings), random))
}

/**
 * Delay, `Prefer`, faults and the error rate, decided once for every transport. A preferred code
 * is what the client asked for, so it is answered as asked: the error rate is drawn only without
 * one. A fault (preferred, then configured) beats both: a configured fault is a property of the
 * answer, so no error rate is drawn for it.
 */
export function decidePolicy(input: PolicyInput, random: Random): PolicyDecision {
  const { settings, prefer } = input
  const delayMs = decideDelay(settings, prefer, input.floor, random)
  if (prefer.fault !== undefined) return { delayMs, outcome: { kind: 'fault', fault: prefer.fault, cause: 'prefer' } }
  if (settings.fault !== null) return { delayMs, outcome: { kind: 'fault', fault: settings.fault, cause: 'configured' } }
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

/** The fault a decision asks for, if any. */
export function faultOf(decision: PolicyDecision | null | undefined): Fault | null {
  return decision?.outcome.kind === 'fault' ? decision.outcome.fault : null
}

/**
 * What an operation's decision and settings say instead of a generated answer (GraphQL, SOAP): a
 * simulated error, drawn or a configured error status (an operation cannot carry data with one),
 * else its fixed value. A fault gives nothing here: the transport drops the whole exchange.
 */
export function operationOverride(endpoint: Endpoint, decision: PolicyDecision): { value?: unknown; error?: string } | undefined {
  const { outcome } = decision
  if (outcome.kind === 'fault') return undefined
  if (outcome.kind === 'simulated-error') return { error: `simulated error (${outcome.reason})` }
  if (outcome.status >= 400) return { error: `simulated ${outcome.status} (configured status)` }
  if (endpoint.body !== null) return { value: JSON.parse(endpoint.body) as unknown }
  return undefined
}
