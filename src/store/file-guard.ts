import { closeSync, fstatSync, openSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'

export interface FileGuard {
  /** Why the database file can no longer keep anything, or null while it is fine. */
  lost(): string | null
  close(): void
}

/** A write checks the file itself at most this often; between checks the folder watch tells. */
const RECHECK_MS = 5

function inode(path: string): number | null {
  return statSync(path, { throwIfNoEntry: false })?.ino ?? null
}

/**
 * Notices the database file (or its write-ahead log) being deleted, moved or replaced under a
 * running process. SQLite keeps writing to the open, unlinked file and reports success, so without
 * this a write would be acknowledged and then be gone at the next start. The folder is watched
 * (unlinks and renames there are rare and reported at once); writes also look at the file itself,
 * at most every few milliseconds, where a watch is late or not supported.
 */
export function createFileGuard(path: string, onLost: (reason: string) => void): FileGuard {
  const fd = openSync(path, 'r')
  const ino = fstatSync(fd).ino
  const walPath = `${path}-wal`
  let walIno = inode(walPath)
  let reason: string | null = null
  let checkedAt = 0

  const check = (): string | null => {
    if (reason) return reason
    checkedAt = performance.now()
    if (fstatSync(fd).nlink === 0 || inode(path) !== ino) reason = `the database file ${path} was deleted, moved or replaced while in use`
    else {
      const currentWal = inode(walPath)
      if (walIno === null) walIno = currentWal
      else if (currentWal !== walIno) reason = `the write-ahead log ${walPath} was deleted or replaced while in use`
    }
    if (reason) onLost(reason)
    return reason
  }

  const name = basename(path)
  let watcher: FSWatcher | null = null
  try {
    watcher = watch(dirname(path), { persistent: false }, (_type, changed) => {
      if (changed === null || String(changed).startsWith(name)) check()
    })
    // The folder itself removed, or a watch limit reached: the checks below still hold.
    watcher.on('error', () => watcher?.close())
  } catch {
    watcher = null
  }

  return {
    lost: () => reason ?? (performance.now() - checkedAt >= RECHECK_MS ? check() : null),
    close() {
      watcher?.close()
      closeSync(fd)
    },
  }
}
