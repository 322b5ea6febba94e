/** An RFC 8288 `Link` header with first/prev/next/last pages, as json-server 0.17 sends. */
export function linkHeader(url: URL, page: number, limit: number, total: number): string {
  const last = Math.max(1, Math.ceil(total / limit))
  // One copy of the URL without page/limit; each link only appends them (four URL objects cost ~10 % of a page).
  const rest = new URLSearchParams(url.search)
  rest.delete('page')
  rest.delete('limit')
  const query = rest.toString()
  const prefix = `${url.origin}${url.pathname}?${query ? `${query}&` : ''}`
  const at = (n: number) => `<${prefix}page=${n}&limit=${limit}>`
  const links = [`${at(1)}; rel="first"`]
  if (page > 1) links.push(`${at(Math.min(page - 1, last))}; rel="prev"`)
  if (page < last) links.push(`${at(page + 1)}; rel="next"`)
  links.push(`${at(last)}; rel="last"`)
  return links.join(', ')
}
