export const FORM_TYPE = 'application/x-www-form-urlencoded'
export const MULTIPART_TYPE = 'multipart/form-data'

/** Form fields as an object; a repeated key (`a=1&a=2`) becomes an array, as form arrays are sent. */
export function formFields(entries: Iterable<[string, string]>): Record<string, string | string[]> {
  // A Map, then fromEntries: a field named __proto__ stays a plain field.
  const fields = new Map<string, string | string[]>()
  for (const [name, value] of entries) {
    const before = fields.get(name)
    fields.set(name, before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value])
  }
  return Object.fromEntries(fields)
}

/** A multipart body's fields (Node's own parser), an uploaded file counting as its file name; null when it does not parse. */
export async function multipartFields(bytes: Uint8Array, contentType: string): Promise<Record<string, string | string[]> | null> {
  const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData().catch(() => null)
  return form && formFields([...form].map(([name, value]): [string, string] => [name, typeof value === 'string' ? value : value.name]))
}

const BOUNDARY = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i
/** What the fetch standard's parser accepts, and nothing else: `form-data; name="a"`, then optionally `; filename="b"`. */
const DISPOSITION = /^form-data; name="([^"]*)"(?:; filename="([^"]*)")?$/
/** Quotes and line breaks inside a name are sent percent-encoded (HTML's form encoding), and read back so. */
const unescapeName = (text: string) => text.replace(/%0A/gi, '\n').replace(/%0D/gi, '\r').replace(/%22/g, '"')

const utf8 = (latin1: string) => Buffer.from(latin1, 'latin1').toString('utf8')

/**
 * multipartFields without waiting: the request journal reads kept bodies synchronously (a test's
 * `verify` right after its request). The same reading: a file counts as its file name, and a body
 * that does not parse (no boundary, a part without a name, no closing delimiter) gives null.
 */
export function multipartFieldsNow(bytes: Uint8Array, contentType: string): Record<string, string | string[]> | null {
  const boundary = BOUNDARY.exec(contentType)
  if (!boundary) return null
  // Latin-1 keeps one character per byte, so the parts split where the bytes do; values are decoded as UTF-8 after.
  const chunks = `\r\n${Buffer.from(bytes).toString('latin1')}`.split(`\r\n--${boundary[1] ?? boundary[2]}`)
  const entries: [string, string][] = []
  for (const chunk of chunks.slice(1)) {
    if (chunk.startsWith('--')) return formFields(entries)
    const headStart = chunk.indexOf('\r\n')
    const headEnd = chunk.indexOf('\r\n\r\n', headStart)
    if (headStart < 0 || chunk.slice(0, headStart).trim() !== '' || headEnd < 0) return null
    let disposition: RegExpExecArray | null = null
    for (const line of chunk.slice(headStart + 2, headEnd).split('\r\n')) {
      const colon = line.indexOf(':')
      if (line.slice(0, colon).trim().toLowerCase() === 'content-disposition') disposition = DISPOSITION.exec(line.slice(colon + 1).trim())
    }
    if (disposition === null) return null
    const [, name, filename] = disposition
    entries.push([unescapeName(utf8(name!)), filename === undefined ? utf8(chunk.slice(headEnd + 4)) : unescapeName(utf8(filename))])
  }
  return null
}
