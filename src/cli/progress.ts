/**
 * The progress line of long commands (seeding, apply, import, reset, export, redeliver): one line
 * on standard error, drawn over itself and erased before the command's summary. The cursor waits
 * on the line below it: Ctrl-C kills the process at once mid-transaction (which is what rolls the
 * work back), and no handler could erase the line before that without delaying the signal until
 * the synchronous work ends, so the shell's prompt then starts on a line of its own. Written here rather than taken from a progress-bar library because the work it watches
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
/**
 * A step's first moments (loading, warming up) say little of its rate: no estimate before it has
 * run this long and done `ESTIMATE_AFTER_SHARE` of its items.
 */
const ESTIMATE_AFTER_MS = 1000
const ESTIMATE_AFTER_SHARE = 0.05
/** How often the line is redrawn (its elapsed time) while the work waits rather than reports. */
const TICK_MS = 250

/** Moves to the start of the line; erases from the cursor to its end; moves up a line. */
const RETURN = '\r'
const ERASE_TO_END = '\x1b[K'
const UP = '\x1b[A'

export interface ProgressLine {
  /**
   * The work reported a step: drawn once the work has run `FIRST_DRAW_MS` (at once when the step
   * is `long`), then at most every `REDRAW_MS`; a new step at once, unless the last draw was a new
   * step too, less than `REDRAW_MS` ago (quick steps in a row are drawn no more often than one
   * step); and the end of the step the line shows, whenever it comes.
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
  let drawn: ProgressStep | null = null
  let drawnAt: number | null = null
  let drewNewStep = false
  let cleared = false

  /** `newStep`: whether this draw counts as a new step's, which a new step less than `REDRAW_MS` later does not follow at once. */
  const draw = (at: number, newStep: boolean) => {
    // One character short of the width: a line that fills it wraps on some terminals, and a carriage return then redraws only its second half.
    const width = Math.max(terminal.columns() || 80, 20) - 1
    const text = progressText(step!, at - startedAt, remainingMs(step!, at - stepAt, step!.done - stepDone), width)
    terminal.write(`${drawn === null ? '' : UP}${RETURN}${text}${ERASE_TO_END}\n`)
    drawn = step
    drawnAt = at
    drewNewStep = newStep
  }
  /** The line shows this step, with a count it has gone past: left so, it would stay on screen through whatever follows. */
  const endsDrawnStep = (next: ProgressStep) =>
    next.total !== null && next.done >= next.total && drawn !== null && drawn.label === next.label && drawn.done !== next.done
  const drawIfDue = (newStep: boolean) => {
    if (cleared || step === null) return
    const at = now()
    // A long step's reports are few, each after a stretch of silence; the same one twice (a count, then its finish) is drawn once.
    if (step.long) {
      const repeated = drawn !== null && drawn.label === step.label && drawn.done === step.done
      if (!repeated || drawnAt === null || at - drawnAt >= REDRAW_MS) draw(at, newStep)
      return
    }
    // Drawn as the step it ends: quick steps in a row, each ending, still draw no more often than one.
    if (endsDrawnStep(step)) return draw(at, drewNewStep)
    if (drawnAt === null && at - startedAt < FIRST_DRAW_MS) return
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
      if (drawn !== null) terminal.write(`${UP}${RETURN}${ERASE_TO_END}`)
    },
  }
}

/** What is left of the step at the rate it went so far; null without a total, or before the rate means anything. */
function remainingMs(step: ProgressStep, stepMs: number, doneInStep: number): number | null {
  if (step.total === null || step.done >= step.total) return null
  if (stepMs < ESTIMATE_AFTER_MS || doneInStep <= 0 || doneInStep < step.total * ESTIMATE_AFTER_SHARE) return null
  return (stepMs * (step.total - step.done)) / doneInStep
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

/**
 * `[2/5] seeding /api/items: 42,000 of 100,000 (42%) · 2.1 s · about 3 s left`, at most `width`
 * characters: a label too long for it loses the middle of what it names (a path keeps its file
 * name) before the numbers lose anything, and only a line too narrow for the numbers is cut at its end.
 */
export function progressText(step: ProgressStep, elapsedMs: number, leftMs: number | null, width = Infinity): string {
  const counts = step.total !== null
    ? `: ${count(step.done)} of ${count(step.total)} (${step.total === 0 ? 100 : Math.floor((step.done / step.total) * 100)}%)`
    : step.done > 0 ? `: ${count(step.done)}` : ''
  const part = step.part ? `[${step.part.index}/${step.part.count}] ` : ''
  const tail = [counts, duration(elapsedMs), ...(leftMs === null ? [] : [`about ${roughDuration(leftMs)} left`])]
  const after = `${tail[0]} · ${tail.slice(1).join(' · ')}`
  const text = `${part}${shortened(step.label, width - part.length - after.length)}${after}`
  return text.length > width ? `${text.slice(0, width - 1)}…` : text
}

/** The label in at most `room` characters: its middle gives way to `…`, keeping its start and its last part (a file's name). */
function shortened(label: string, room: number): string {
  if (label.length <= room) return label
  // Too narrow to say anything useful of it: the line's end is cut instead.
  if (room < 12) return label
  const lastPart = Math.max(label.lastIndexOf('/'), label.lastIndexOf(' '))
  const end = lastPart > 0 && label.length - lastPart <= room - 8 ? label.slice(lastPart) : label.slice(label.length - Math.floor((room - 1) / 2))
  return `${label.slice(0, room - 1 - end.length)}…${end}`
}

/** A variable set to anything but empty, "0" or "false". */
const isSet = (value: string | undefined) => value !== undefined && value !== '' && value !== '0' && value.toLowerCase() !== 'false'

/**
 * Whether a command draws the line: only to a terminal, and never with `--quiet` or `--json`,
 * `CI` or `TERM=dumb` (which cannot erase a line). `NO_COLOR` asks for no colour, which the line
 * never has, not for no line. Where it is not drawn nothing replaces it: the output stays what
 * scripts and CI logs have always read.
 */
export function showsProgress(terminal: Terminal | undefined, environment: Environment, flags: { quiet?: boolean | undefined; json?: boolean | undefined }): terminal is Terminal {
  const { env } = environment
  if (terminal === undefined || flags.quiet || flags.json) return false
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
