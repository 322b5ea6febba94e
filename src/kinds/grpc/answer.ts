import type { Faker } from '@faker-js/faker'
import type protobuf from 'protobufjs'
import type { DelaySpec } from '../../engine/delay.ts'
import { decidePolicy, NO_PREFERENCES, type PolicySettings, type Random } from '../../engine/policy.ts'
import type { Fault } from '../../model.ts'
import { AppError } from '../../errors.ts'
import { bodyMessages, generateMessage } from './generate.ts'
import { GRPC_OK, GRPC_UNAVAILABLE, grpcCodeFor, grpcCodeName } from './status.ts'

/** What one call answers with before any message: its status, the status's details, and how long to wait. */
export interface GrpcOutcome {
  code: number
  details: string
  delayMs: number
  /** A simulated network fault: the call ends UNAVAILABLE (after the client gives up, for `hang`). */
  fault: Fault | null
}

/**
 * The policy's decision for one call as a gRPC status: a fault, a drawn error, the configured
 * status, or OK. HTTP/2 carries many calls on one connection, so a fault ends the call, never the
 * connection: `reset`, `empty` and `malformed` answer UNAVAILABLE at once, `hang` when the call's
 * deadline passes, the client cancels, or 60 s have gone.
 */
export function grpcOutcome(settings: PolicySettings, random: Random, floor?: DelaySpec | null): GrpcOutcome {
  const { delayMs, outcome } = decidePolicy({ settings, prefer: NO_PREFERENCES, floor }, random)
  if (outcome.kind === 'fault') return { code: GRPC_UNAVAILABLE, details: `mockapi: simulated fault ${outcome.fault}`, delayMs, fault: outcome.fault }
  const code = grpcCodeFor(outcome.status)
  if (outcome.kind === 'simulated-error') {
    return { code, details: `mockapi: simulated error ${grpcCodeName(code)} (error rate ${settings.errorRate}%)`, delayMs, fault: null }
  }
  return { code, details: code === GRPC_OK ? '' : `mockapi: configured status ${grpcCodeName(code)}`, delayMs, fault: null }
}

export interface GrpcMessagesInput {
  /** `/pkg.Service/Method`, for the error that names it. */
  path: string
  responseType: protobuf.Type
  /** JSON text of the configured answer (an array: a server stream's messages); null: generated. */
  body: string | null
  /** Unary and client-streaming methods answer one message. */
  answersOne: boolean
  /** How many messages to generate. */
  count: number
  faker: Faker
}

/** `count` generated messages, or the fixed body's (one message for unary answers, all for streams). */
export function grpcMessages({ path, responseType, body, answersOne, count, faker }: GrpcMessagesInput): Record<string, unknown>[] {
  if (body === null) return Array.from({ length: count }, () => generateMessage(responseType, faker))
  const { messages, many } = bodyMessages(responseType, body)
  if (many && answersOne) throw new AppError('INVALID_INPUT', `the body is a JSON array (a server stream's messages) but ${path} answers one message`)
  return messages
}
