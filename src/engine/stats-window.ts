import { AppError } from '../errors.ts'

/** The shortest and longest span `GET …/stats` looks back over, in seconds. */
export const MIN_WINDOW_SECONDS = 60
export const MAX_WINDOW_SECONDS = 24 * 60 * 60
/** More buckets than this would draw bars thinner than a pixel and answer more than a chart can show. */
export const MAX_BUCKETS = 120
export const DEFAULT_WINDOW = '15m'

/**
 * The bucket sizes chosen when none is asked for: each divides a minute or is whole minutes, so
 * buckets line up with the per-second and per-minute counters of the requests.
 */
const STEPS = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600]

/** What a stats query covers: `bucketCount` buckets of `bucketSeconds`, aligned to the epoch, the last one holding `now`. */
export interface StatsWindow {
  /** As asked (`15m`), or the default. */
  window: string
  bucketSeconds: number
  bucketCount: number
  /** The first bucket's start and the last one's end, in ms since the epoch. */
  fromMs: number
  toMs: number
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 }

function refused(parameter: string, message: string): AppError {
  return new AppError('INVALID_QUERY', `query parameter "${parameter}" ${message}`, { details: [{ parameter, message }] })
}

/** `90s`, `15m`, `2h`, `1d` in seconds; null when it is not one. */
function spanSeconds(text: string): number | null {
  const match = /^([1-9][0-9]{0,5})([smhd])$/.exec(text)
  return match ? Number(match[1]) * UNIT_SECONDS[match[2]!]! : null
}

/** A bucket the counters can add up: it divides a minute, or is whole minutes. */
const alignable = (seconds: number) => 60 % seconds === 0 || seconds % 60 === 0

/**
 * The smallest of STEPS that divides the window into at most MAX_BUCKETS, else the smallest such
 * bucket of whole minutes (a `121m` window: 11 minutes); null when there is none (`121s`).
 */
function defaultBucket(windowSeconds: number): number | null {
  const fits = (step: number) => windowSeconds % step === 0 && windowSeconds / step <= MAX_BUCKETS
  const step = STEPS.find(fits)
  if (step !== undefined) return step
  for (let minutes = 1; minutes * 60 <= windowSeconds; minutes++) if (fits(minutes * 60)) return minutes * 60
  return null
}

/**
 * `window` (1m to 24h, default 15m) and `bucket` (optional) of a stats query, the buckets they make
 * at `nowMs`; any other parameter, or a value out of range, is a 400 naming it.
 */
export function parseStatsWindow(query: URLSearchParams, nowMs: number): StatsWindow {
  for (const name of new Set(query.keys())) {
    if (name !== 'window' && name !== 'bucket') throw refused(name, 'is not taken here: the stats take window and bucket')
    if (query.getAll(name).length > 1) throw refused(name, 'is given more than once')
  }
  const window = query.get('window') ?? DEFAULT_WINDOW
  const windowSeconds = spanSeconds(window)
  if (windowSeconds === null || windowSeconds < MIN_WINDOW_SECONDS || windowSeconds > MAX_WINDOW_SECONDS) {
    throw refused('window', `must be a span from 1m to 24h such as 90s, 15m, 2h or 1d, got "${window}"`)
  }
  const bucket = query.get('bucket')
  let bucketSeconds: number
  if (bucket === null) {
    const chosen = defaultBucket(windowSeconds)
    if (chosen === null) {
      throw refused('window', `must split into at most ${MAX_BUCKETS} equal buckets that divide a minute or are whole minutes, as 90s, 15m, 2h or 1d do, got "${window}"`)
    }
    bucketSeconds = chosen
  } else {
    const asked = spanSeconds(bucket)
    if (asked === null || !alignable(asked)) {
      throw refused('bucket', `must be a span that divides a minute or is whole minutes (5s, 30s, 1m, 15m), got "${bucket}"`)
    }
    if (asked > windowSeconds) throw refused('bucket', `must be no longer than the window (${window}), got "${bucket}"`)
    // The buckets cover the window exactly: 90s in buckets of 1m would answer 120 s.
    if (windowSeconds % asked !== 0) throw refused('bucket', `must divide the window (${window}) into whole buckets, got "${bucket}"`)
    if (windowSeconds / asked > MAX_BUCKETS) {
      throw refused('bucket', `makes more than ${MAX_BUCKETS} buckets of the ${window} window, got "${bucket}"`)
    }
    bucketSeconds = asked
  }
  const bucketCount = windowSeconds / bucketSeconds
  const bucketMs = bucketSeconds * 1000
  const toMs = (Math.floor(nowMs / bucketMs) + 1) * bucketMs
  return { window, bucketSeconds, bucketCount, fromMs: toMs - bucketCount * bucketMs, toMs }
}
