/** The Content-Type a file is answered with, by its name's extension. */
const BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  zip: 'application/zip',
  gz: 'application/gzip',
  mp3: 'audio/mpeg',
  mp4: 'video/mp4',
  wav: 'audio/wav',
  woff: 'font/woff',
  woff2: 'font/woff2',
}

export const OCTET_STREAM = 'application/octet-stream'
export const TEXT_TYPE = 'text/plain; charset=utf-8'

/** `avatar.png` → `image/png`; an unknown or missing extension → application/octet-stream. */
export function contentTypeOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return (dot >= 0 && Object.hasOwn(BY_EXTENSION, name.slice(dot + 1).toLowerCase()) && BY_EXTENSION[name.slice(dot + 1).toLowerCase()]) || OCTET_STREAM
}

/** Whether a body of this type reads as text (the journal shows it; others by size). */
export function isTextual(contentType: string | null | undefined): boolean {
  if (!contentType) return true
  const mime = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return mime.startsWith('text/') || isJsonContentType(mime) || mime === 'application/xml' || mime.endsWith('+xml')
    || mime === 'application/javascript' || mime === 'application/x-www-form-urlencoded' || mime.startsWith('multipart/')
}

/** `application/json` and any `application/*+json` (problem+json, vnd.api+json…), parameters aside. */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false
  const mime = contentType.split(';', 1)[0]!.trim().toLowerCase()
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'))
}
