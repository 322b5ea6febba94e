import type { H3Event } from 'h3'
import { setTimeout as sleep } from 'node:timers/promises'
import { AppError } from '../errors.ts'

/**
 * Holds a response for a configured delay (`delay`, `Prefer: delay=`). The wait ends when the
 * client goes away (closing the server cuts the connections still open, which ends it too), and
 * its timer never keeps the process alive: SIGTERM does not wait out a delay nobody is waiting for.
 * The error thrown then only unwinds the stages: the mock handler sees the client gone and
 * journals no answer (status 0), since this refusal reaches nobody.
 */
export async function holdResponse(event: H3Event, ms: number): Promise<void> {
  if (ms <= 0) return
  try {
    await sleep(ms, undefined, { signal: event.req.signal, ref: false })
  } catch {
    throw new AppError('BAD_REQUEST', 'the client closed the connection during the response delay')
  }
}
