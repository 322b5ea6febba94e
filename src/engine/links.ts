import type { Paging } from './list-query.ts'

const lastPage = (limit: number, total: number) => Math.max(1, Math.ceil(total / limit))

/**
 * An RFC 8288 `Link` header with first/prev/next/last pages, as json-server 0.17 sends, in the
 * client's own spelling (`page`/`limit`, `_page`/`_limit`, `_page`/`_per_page`).
 */
export function linkHeader(url: URL, paging: Paging, total: number): string {
  const { page, limit, pageName, limitName } = paging
  const last = lastPage(limit, total)
  // One copy of the URL without the paging names; each link only appends them (four URL objects cost ~10 % of a page).
  const rest = new URLSearchParams(url.search)
  rest.delete(pageName)
  rest.delete(limitName)
  const query = rest.toString()
  const prefix = `${url.origin}${url.pathname}?${query ? `${query}&` : ''}`
  const at = (n: number) => `<${prefix}${pageName}=${n}&${limitName}=${limit}>`
  const links = [`${at(1)}; rel="first"`]
  if (page > 1) links.push(`${at(Math.min(page - 1, last))}; rel="prev"`)
  if (page < last) links.push(`${at(page + 1)}; rel="next"`)
  links.push(`${at(last)}; rel="last"`)
  return links.join(', ')
}

/** The last page in place of one past it, as json-server 1.x's envelope pages; null when `paging` is within the list. */
export function clampToLastPage(paging: Paging, total: number): Paging | null {
  const last = lastPage(paging.limit, total)
  return paging.page > last ? { ...paging, page: last } : null
}

/**
 * json-server 1.x's paged envelope around the page's JSON array text (kept as text: the records
 * are not parsed for it). `paging` is within the list (`clampToLastPage`).
 */
export function envelopeJson(paging: Paging, total: number, dataJson: string): string {
  const last = lastPage(paging.limit, total)
  const prev = paging.page > 1 ? paging.page - 1 : null
  const next = paging.page < last ? paging.page + 1 : null
  return `{"first":1,"prev":${prev},"next":${next},"last":${last},"pages":${last},"items":${total},"data":${dataJson}}`
}
