/** An RFC 8288 `Link` header with first/prev/next/last pages, as json-server 0.17 sends. */
export function linkHeader(url: URL, page: number, limit: number, total: number): string {
  const last = Math.max(1, Math.ceil(total / limit))
  const at = (n: number): string => {
    const target = new URL(url)
    target.searchParams.set('page', String(n))
    target.searchParams.set('limit', String(limit))
    return `<${target.href}>`
  }
  const links = [`${at(1)}; rel="first"`]
  if (page > 1) links.push(`${at(Math.min(page - 1, last))}; rel="prev"`)
  if (page < last) links.push(`${at(page + 1)}; rel="next"`)
  links.push(`${at(last)}; rel="last"`)
  return links.join(', ')
}
