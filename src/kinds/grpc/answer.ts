import type { Faker } from '@faker-js/faker'
import type protobuf from 'protobufjs'
import { decidePolicy, NO_PREFERENCES, type PolicySettings, type Random } from '../../engine/policy.ts'
import { AppError } from '../../errors.ts'
import { bodyMessages, generateMessage } from './generate.ts'
import { GRPC_OK, grpcCodeFor, grpcCodeName } from './status.ts'

/** What one call answers with before any message: its status, the status's details, and how long to wait. */
export interface GrpcOutcome {
  code: number
  details: string
  delayMs: number
}

/** The policy's decision for one call as a gRPC status: a drawn error, the configured status, or OK. */
export function grpcOutcome(settings: PolicySettings, random: Random): GrpcOutcome {
  const { delayMs, outcome } = decidePolicy({ settings, prefer: NO_PREFERENCES }, random)
  const code = grpcCodeFor(outcome.status)
  if (outcome.kind === 'simulated-error') {
    return { code, details: `mockapi: simulated error ${grpcCodeName(code)} (error rate ${settings.errorRate}%)`, delayMs }
  }
  return { code, details: code === GRPC_OK ? '' : `mockapi: configured status ${grpcCodeName(code)}`, delayMs }
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
