import { watch, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'

const DEBOUNCE_MS = 150

/**
 * Calls `onChange` after the file changes. The folder is watched, not the file: editors often
 * save by writing a new file and renaming it over the old one, which ends a watch on the file.
 */
export function watchFile(path: string, onChange: () => void): { close(): void } {
  const name = basename(path)
  let timer: NodeJS.Timeout | null = null
  const watcher: FSWatcher = watch(dirname(path), (_event, changed) => {
    if (changed !== null && changed !== name) return
    if (timer) clearTimeout(timer)
    timer = setTimeout(onChange, DEBOUNCE_MS)
  })
  return {
    close() {
      if (timer) clearTimeout(timer)
      watcher.close()
    },
  }
}
