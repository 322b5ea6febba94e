/** Caches what is built from a stored spec (an executor, a responder), rebuilt when the spec is imported again. */
export function createSpecCache<T>(): (key: { specId: number; importedAt: string }, build: () => T) => T {
  const built = new Map<number, { importedAt: string; value: T }>()
  return (key, build) => {
    const cached = built.get(key.specId)
    if (cached?.importedAt === key.importedAt) return cached.value
    const value = build()
    built.set(key.specId, { importedAt: key.importedAt, value })
    return value
  }
}
