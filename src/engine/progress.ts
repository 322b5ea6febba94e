/** How far a long piece of work got: what it is doing, items done, of how many (null: not known). */
export interface ProgressStep {
  label: string
  done: number
  total: number | null
  /** Where the step stands among the command's steps, when the command knows them: `index` (from 1) of `count`. */
  part?: { index: number; count: number } | undefined
  /**
   * Known to take a while without reporting (one synchronous call, such as parsing a big file):
   * shown at once rather than after the first second, since nothing else is heard until it ends.
   */
  long?: boolean | undefined
}

/** Told how far long work got; the CLI draws it, nothing else need listen. */
export type OnProgress = (step: ProgressStep) => void

/** What a long domain function takes beside its own options, when it has no options object of its own. */
export interface ProgressOptions {
  onProgress?: OnProgress | undefined
}

/** A document bigger than this takes about a second or more to parse and check in one call: its reading is a `long` step. */
export const LONG_READ_BYTES = 1024 * 1024
/** A step done in one call over this many items (records laid out as YAML, restored, deleted) takes about a second or more: a `long` one. */
export const LONG_STEP_ITEMS = 50_000

/** The same listener, told that each step is the `index`th (from 1) of the command's `count`. */
export function partOf(onProgress: OnProgress | undefined, index: number, count: number): OnProgress | undefined {
  if (onProgress === undefined) return undefined
  const part = { index, count }
  return (step) => onProgress({ ...step, part })
}

/** The same listener, told that each step is `long` (drawn at once, not after the first second): work known to take a while, or one call that reports nothing while it runs. */
export function asLong(onProgress: OnProgress | undefined): OnProgress | undefined {
  if (onProgress === undefined) return undefined
  return (step) => onProgress({ ...step, long: true })
}

/** Counts the items of one step and tells `onProgress` now and then. */
export interface ProgressCounter {
  /** `count` more items done. */
  add(count?: number): void
  /** The step is over: reports it complete. */
  finish(): void
}

/** Items between two reports of fast work; `REPORT_MS` bounds the wait between two of slow work. */
export const REPORT_ITEMS = 1000
export const REPORT_MS = 100

const SILENT: ProgressCounter = { add() {}, finish() {} }

/**
 * A counter that reports the step at once (so a listener knows what runs, even if no item ever
 * ends), then each time `REPORT_ITEMS` more items are done or `REPORT_MS` went by, whichever comes
 * first, and once more when finished. Without a listener, or with nothing to count (a total of
 * 0), it does nothing at all: code that counts costs nothing when nobody looks, and an empty step
 * does not flash by.
 */
export function countProgress(onProgress: OnProgress | undefined, label: string, total: number | null, now: () => number = () => performance.now()): ProgressCounter {
  if (onProgress === undefined || total === 0) return SILENT
  // Its count says it is long before the clock does: the line shows from the start, on any machine.
  if (total !== null && total >= LONG_STEP_ITEMS) onProgress = asLong(onProgress)!
  let done = 0
  let reportedDone = 0
  let reportedAt = now()
  onProgress({ label, done, total })
  const report = () => {
    reportedDone = done
    reportedAt = now()
    onProgress({ label, done, total })
  }
  return {
    add(count = 1) {
      done += count
      if (done - reportedDone >= REPORT_ITEMS || now() - reportedAt >= REPORT_MS) report()
    },
    finish() {
      if (total !== null) done = Math.max(done, total)
      report()
    },
  }
}

/** The items as they are, each counted once taken; the step finishes when they run out. Unwrapped when nobody listens. */
export function counted<T>(items: Iterable<T>, progress: ProgressCounter): Iterable<T> {
  return progress === SILENT ? items : countEach(items, progress)
}

function* countEach<T>(items: Iterable<T>, progress: ProgressCounter): Generator<T> {
  for (const item of items) {
    yield item
    progress.add()
  }
  progress.finish()
}
