import type { FieldCondition, SortKey } from '../model.ts'

/** What records.ts keeps: its query and page (spelled here, as records.ts imports this module). */
interface PageQuery {
  filters: readonly FieldCondition[]
  q: string | null
  sort: readonly SortKey[]
  limit: number | null
  offset: number
}
interface Page {
  total: number
  json: string
}

/** Pages kept at most; the least recently read goes first. */
const MAX_PAGES = 256
/** Characters of page JSON kept in all, and in one page: a list of every record of a large collection is computed each time. */
const MAX_CHARS = 8_000_000
const MAX_PAGE_CHARS = 1_000_000

/**
 * Record pages as last computed, each under its collection's version when it was computed: a page
 * is served again only while nothing has written to that collection since (the caller's version is
 * unchanged). A list request is one synchronous statement on the event loop, so every concurrent
 * request queues behind it; the same filtered, sorted page over a large collection read again
 * costs a lookup instead.
 */
export function createPageCache<P extends Page>() {
  const pages = new Map<string, { version: number; page: P }>()
  let chars = 0

  const drop = (key: string): void => {
    const hit = pages.get(key)
    if (!hit) return
    chars -= hit.page.json.length
    pages.delete(key)
  }

  return {
    /** The query's key: its shape and every value it binds (a `like` is known by its patterns). */
    keyOf: (collectionId: number, query: PageQuery): string =>
      JSON.stringify([collectionId, query.filters.map((f) => [f.field, f.op, f.values]), query.q, query.sort, query.limit, query.offset]),

    get(key: string, version: number): P | undefined {
      const hit = pages.get(key)
      if (!hit) return undefined
      pages.delete(key)
      if (hit.version !== version) {
        chars -= hit.page.json.length
        return undefined
      }
      // Least recently read goes first: the map's order is the order of reading.
      pages.set(key, hit)
      return hit.page
    },

    set(key: string, version: number, page: P): void {
      if (page.json.length > MAX_PAGE_CHARS) return
      drop(key)
      while (pages.size >= MAX_PAGES || (pages.size > 0 && chars + page.json.length > MAX_CHARS)) drop(pages.keys().next().value!)
      pages.set(key, { version, page })
      chars += page.json.length
    },
  }
}
