import { closeSync, fstatSync, openSync, statSync } from 'node:fs'

export interface FileGuard {
  /** Why the database file can no longer keep anything, or null while it is fine. */
  lost(): string | null
  close(): void
}

function inode(path: string): number | null {
  try {
    return statSync(path).ino
  } catch {
    return null
  }
}

/**
 * Notices the database file (or its write-ahead log) being deleted or replaced under a running
 * process. SQLite keeps writing to the open, unlinked file and reports success, so without this
 * a write would be acknowledged and then be gone at the next start.
 */
export function createFileGuard(path: string): FileGuard {
  const fd = openSync(path, 'r')
  const ino = fstatSync(fd).ino
  const walPath = `${path}-wal`
  let walIno = inode(walPath)
  let reason: string | null = null
  return {
    lost() {
      if (reason) return reason
      if (fstatSync(fd).nlink === 0 || inode(path) !== ino) {
        reason = `the database file ${path} was deleted or replaced while in use`
        return reason
      }
      const currentWal = inode(walPath)
      if (walIno === null) walIno = currentWal
      else if (currentWal !== walIno) reason = `the write-ahead log ${walPath} was deleted or replaced while in use`
      return reason
    },
    close: () => closeSync(fd),
  }
}
