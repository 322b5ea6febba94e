/** `application/json` and any `application/*+json` (problem+json, vnd.api+json…), parameters aside. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false
  const mime = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'))
}
