// Which core runs what. On two or more cores every measured server runs on core 0 and the load
// generator (with this process and the webhook receiver) on core 1, so the load never takes CPU
// from the server it measures; with one core, or without taskset (util-linux), nothing is pinned
// and the run says so.
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

const hasTaskset = spawnSync('taskset', ['--version']).error === undefined
const cores = availableParallelism()
const PINNED = hasTaskset && cores >= 2 && process.env.BENCH_NO_PIN !== '1'
export const SERVER_CORE = 0
export const LOAD_CORE = 1

export const pinNote = PINNED
  ? `servers pinned to core ${SERVER_CORE}, load generator and bench to core ${LOAD_CORE} (taskset)`
  : `NOT pinned (${process.env.BENCH_NO_PIN === '1' ? 'BENCH_NO_PIN=1' : !hasTaskset ? 'taskset not found: install util-linux' : `${cores} core`}): servers and load share the CPU, so compare ratios within this run only`

/** The command line to run `args` on one core (unchanged when not pinning). */
export const onCore = (core, args) => (PINNED ? ['taskset', '-c', String(core), ...args] : args)

/** Moves this process (and so every child it spawns without onCore) to the load generator's core. */
export function pinSelf() {
  if (PINNED) spawnSync('taskset', ['-a', '-p', '-c', String(LOAD_CORE), String(process.pid)], { stdio: 'ignore' })
}
