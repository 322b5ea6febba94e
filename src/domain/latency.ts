import { parseDelay, type DelaySpec } from '../engine/delay.ts'
import { AppError } from '../errors.ts'
import { FAULTS, type Fault } from '../model.ts'

/** A fault by name, refused with the names there are. */
export function checkFault(fault: string): Fault {
  if (!(FAULTS as readonly string[]).includes(fault)) throw new AppError('INVALID_INPUT', `fault "${fault}" must be one of ${FAULTS.join(', ')}`)
  return fault as Fault
}

/** A delay as stored: `delayMaxMs` is null when it is fixed (`100-100` is a fixed 100). Bounds are checked again here, whoever built it. */
export function storedDelay(delay: DelaySpec): { delayMs: number; delayMaxMs: number | null } {
  const { min, max } = parseDelay(`${delay.min}-${delay.max}`)
  return { delayMs: min, delayMaxMs: max > min ? max : null }
}
