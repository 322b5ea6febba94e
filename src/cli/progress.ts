/**
 * The progress line of long commands (seeding, apply, import, reset, export, redeliver): one line
 * on standard error, drawn over itself with a carriage return and erased before the command's
 * summary. Written here rather than taken from a progress-bar library because the work it watches
 * is synchronous (better-sqlite3 transactions): a library that redraws from its own timer never
 * gets the event loop until the work is over, so the line is drawn from the domain's reports, and
 * from a timer only while the work waits (a URL being fetched).
 */
import type { Environment } from '../config.ts'
import type { OnProgress, ProgressStep } from '../engine/progress.ts'
import type { CliContext } from './context.ts'
import type { Terminal } from './output.ts'

/** Work that ends sooner shows nothing: a line that flashes for a moment is noise. */
export const FIRST_DRAW_MS = 1000
/** A terminal redrawn more often than this only costs time. */
export const REDRAW_MS = 100
/** A step's first moments (loading, warming up) say little of its rate: no estimate before this. */
const ESTIMATE_AFTER_MS = 500
/** How often the line is redrawn (its elapsed time) while the work waits rather than reports. */
const TICK_MS = 250

/** Moves to the start of the line; erases from the cursor to its end. */
const RETURN = '\r'
const ERASE_TO_END = '\x1b[K'

export interface ProgressLine {
  /**
   * The work reported a step: drawn once the work has run `FIRST_DRAW_MS`, then at most every
   * `REDRAW_MS`; a new step at once, unless the last draw was a new step too, less than
   * `REDRAW_MS` ago (quick steps in a row are drawn no more often than one step).
   */
  update: OnProgress
  /** Redraws the last step (its elapsed time) when one is due: the timer's call while the work waits. */
  tick(): void
  /** Erases the line, if one was drawn; nothing is drawn after. */
  clear(): void
}

export interface ProgressLineOptions {
  terminal: Terminal
  /** Milliseconds from any fixed point (`performance.now`); tests give their own. */
  now: () => number
}

export function progressLine({ terminal, now }: ProgressLineOptions): ProgressLine {
  const startedAt = now()
  let step: ProgressStep | null = null
  // Where the current step began (time and count), for its rate and so the estimate.
  let stepAt = startedAt
  let stepDone = 0
  let drawnAt: number | null = null
  let drawnStep = false
  let drewNewStep = false
  let cleared = false

  const draw = (at: number, newStep: boolean) => {
    const text = progressText(step!, at - startedAt, remainingMs(step!, at - stepAt, step!.done - stepDone))
    // One character short of the width: a line that fills it wraps on some terminals, and a carriage return then redraws only its second half.
    const width = Math.max(terminal.columns() || 80, 20) - 1
    terminal.write(`${RETURN}${text.length > width ? `${text.slice(0, width - 1)}…` : text}${ERASE_TO_END}`)
    drawnAt = at
    drawnStep = true
    drewNewStep = newStep
  }
  const drawIfDue = (newStep: boolean) => {
    if (cleared || step === null) return
    const at = now()
    if (at - startedAt < FIRST_DRAW_MS) return
    if (drawnAt !== null && at - drawnAt < REDRAW_MS && (!newStep || drewNewStep)) return
    draw(at, newStep)
  }
  return {
    update(next) {
      const newStep = step === null || next.label !== step.label || next.done < step.done
      if (newStep) {
        stepAt = now()
        stepDone = next.done
      }
      step = next
      drawIfDue(newStep)
    },
    tick: () => drawIfDue(false),
    clear() {
      if (cleared) return
      cleared = true
      if (drawnStep) terminal.write(`${RETURN}${ERASE_TO_END}`)
    },
  }
}

/** What is left of the step at the rate it went so far; null without a total, or before the rate means anything. */
function remainingMs(step: ProgressStep, stepMs: number, doneInStep: number): number | null {
  if (step.total === null || stepMs < ESTIMATE_AFTER_MS || doneInStep <= 0 || step.done >= step.total) return null
  return (stepMs / doneInStep) * (step.total - step.done)
}

const count = (n: number) => n.toLocaleString('en-US')

/** `3.2 s`, `42 s`, `2 min 05 s`. */
export function duration(ms: number): string {
  const seconds = ms / 1000
  if (seconds < 10) return `${seconds.toFixed(1)} s`
  if (seconds < 60) return `${Math.round(seconds)} s`
  const whole = Math.round(seconds)
  return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`
}

/** An estimate, rounded up to what it can tell: `3 s`, `2 min`. */
function roughDuration(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000))
  return seconds < 60 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`
}

/** `seeding /api/items: 42,000 of 100,000 (42%) · 2.1 s · about 3 s left`. */
export function progressText(step: ProgressStep, elapsedMs: number, leftMs: number | null): string {
  const parts = [step.total !== null
    ? `${step.label}: ${count(step.done)} of ${count(step.total)} (${step.total === 0 ? 100 : Math.floor((step.done / step.total) * 100)}%)`
    : step.done > 0 ? `${step.label}: ${count(step.done)}` : step.label]
  parts.push(duration(elapsedMs))
  if (leftMs !== null) parts.push(`about ${roughDuration(leftMs)} left`)
  return parts.join(' · ')
}

/** A variable set to anything but empty, "0" or "false". */
const isSet = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'

/**
 * Whether a command draws the line: only to a terminal, and never with `--quiet` or `--json`,
 * `NO_COLOR`, `CI` or `TERM=dumb` (which cannot erase a line). Where it is not drawn nothing
 * replaces it: the output stays what scripts and CI logs have always read.
 */
export function showsProgress(terminal: Terminal | undefined, environment: Environment, flags: { quiet?: boolean | undefined; json?: boolean | undefined }): terminal is Terminal {
  const { env } = environment
  if (terminal === undefined || flags.quiet || flags.json) return false
  // NO_COLOR: "when present and not an empty string" (no-color.org).
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return !isSet(env.CI) && env.TERM !== 'dumb'
}

/** `--quiet` of a command that may draw the line: `.option(...QUIET_OPTION)`. */
export const QUIET_OPTION = ['--quiet', 'draw no progress line on stderr while it works'] as const

/**
 * Runs `work` with an `onProgress` that draws the line when the command shows it (else none), and
 * erases the line when the work ends, whether it ends well or not, before anything else is printed.
 */
export async function withProgress<T>(ctx: CliContext, flags: { quiet?: boolean | undefined; json?: boolean | undefined }, work: (onProgress: OnProgress | undefined) => T | Promise<T>): Promise<T> {
  const terminal = ctx.io.terminal
  if (!showsProgress(terminal, ctx.environment, flags)) return work(undefined)
  const line = progressLine({ terminal, now: () => performance.now() })
  const timer = setInterval(line.tick, TICK_MS).unref()
  try {
    return await work(line.update)
  } finally {
    clearInterval(timer)
    line.clear()
  }
}
