import type { Db } from '../store/db.ts'
import type { Repos } from '../store/repos.ts'
import type { Clock } from '../model.ts'

/** What domain functions work on: one database, its repositories and a clock. */
export interface Context {
  db: Db
  repos: Repos
  clock: Clock
}

export const systemClock: Clock = { now: () => new Date() }

/** The clock's time in ms since the epoch: the system clock's without a Date made for it, as on every request. */
export function epochMs(clock: Clock): number {
  return clock === systemClock ? Date.now() : clock.now().getTime()
}
