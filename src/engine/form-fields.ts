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
