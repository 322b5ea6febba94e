import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { AppError } from '../errors.ts'
import type { LeaseHolder } from '../store/lease.ts'
import type { Context } from './context.ts'
import { writeTransaction } from './transaction.ts'

/** How often a serving process renews its lease (tests renew more often rather than wait). */
export const LEASE_RENEW_MS = 2_000
/**
 * A lease not renewed for this long belongs to a serve that is gone (killed on another host, or
 * frozen): long enough that a busy moment (another process holding the write lock) never lets a
 * second serve in beside a live one.
 */
export const LEASE_STALE_MS = 15_000

export interface ServeLease {
  readonly holder: LeaseHolder
  /** Records where this serve listens, once it does (a refused second serve names it). */
  announce(url: string): void
  /** Stops renewing and gives the database back. */
  release(): void
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
  // A killed serve whose parent has not reaped it yet still answers signal 0 (Linux tells).
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

/** Whether a recorded holder still serves: renewed lately and, on this host, its process alive. */
function holds(holder: LeaseHolder, now: number): boolean {
  if (now - holder.renewedAt > LEASE_STALE_MS) return false
  return holder.hostname !== hostname() || alive(holder.pid)
}

function describe(holder: LeaseHolder): string {
  const where = holder.hostname === hostname() ? `pid ${holder.pid}` : `pid ${holder.pid} on ${holder.hostname}`
  return `${where}, ${holder.url}, since ${holder.startedAt}`
}

/**
 * Where a live `serve` of this database listens, or null when none does: commands that talk to it
 * (`mockapi requests`) find it here. A wildcard host is reached on loopback.
 */
export function servingUrl(context: Context): string | null {
  const holder = context.repos.lease.holder()
  if (!holder || !holds(holder, context.clock.now().getTime()) || !/^https?:\/\//.test(holder.url)) return null
  return holder.url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:')
}

/**
 * One `serve` per database file: it owns the delivery queue, and a second one would put the
 * first's in-flight deliveries back and send them again. The lease is a row in the file itself,
 * so it works for any process that opens the file, and a killed serve's lease lapses by itself.
 */
export function takeServeLease(context: Context, options: { onLost: (by: LeaseHolder | null) => void; renewMs?: number | undefined }): ServeLease {
  const now = () => context.clock.now().getTime()
  const holder: LeaseHolder = {
    id: randomUUID(),
    pid: process.pid,
    hostname: hostname(),
    url: 'not listening yet',
    startedAt: context.clock.now().toISOString(),
    renewedAt: now(),
  }
  const { lease } = context.repos
  writeTransaction(context.db, () => {
    const current = lease.holder()
    if (current && holds(current, now())) {
      throw new AppError('CONFLICT', `this database is already being served (${describe(current)}); stop that serve first, or pass another --db`)
    }
    lease.take(holder)
  })
  let lost = false
  const renew = () => {
    if (lost) return
    try {
      holder.renewedAt = now()
      const kept = writeTransaction(context.db, () => lease.renew(holder))
      if (!kept) {
        lost = true
        options.onLost(lease.holder())
      }
    } catch {
      // A busy or failing database: the next renewal tries again, well within LEASE_STALE_MS.
    }
  }
  const timer = setInterval(renew, options.renewMs ?? LEASE_RENEW_MS)
  timer.unref()
  return {
    holder,
    announce(url) {
      holder.url = url
      renew()
    },
    release() {
      clearInterval(timer)
      try {
        writeTransaction(context.db, () => lease.release(holder.id))
      } catch {
        // The lease lapses by itself once it is not renewed.
      }
    },
  }
}
