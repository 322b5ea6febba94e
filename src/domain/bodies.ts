import { basename } from 'node:path'
import { contentTypeOf, TEXT_TYPE } from '../engine/media-type.ts'
import { AppError } from '../errors.ts'
import type { Endpoint } from '../model.ts'
import type { Db } from '../store/db.ts'
import type { Context } from './context.ts'

/*
 * Bodies beyond JSON: a text template, or a file's bytes answered as they are, with the
 * Content-Type they are sent with. An endpoint keeps them today; a response of an endpoint keeps
 * the same three fields (bodyType, body or fileId, contentType) and goes through the same checks.
 */

export const MAX_TEXT_BYTES = 1024 * 1024
export const MAX_FILE_BYTES = 5 * 1024 * 1024
const MAX_CONTENT_TYPE = 256
const MAX_FILE_NAME = 255

/** A file given to answer: its name (extension says its type) and bytes, not stored yet. */
export interface UploadedFile {
  name: string
  bytes: Uint8Array
}

const mebibytes = (bytes: number) => `${bytes / 1024 / 1024} MiB`

export function checkText(text: unknown): string {
  if (typeof text !== 'string') throw new AppError('INVALID_INPUT', 'text body must be a string')
  const size = Buffer.byteLength(text)
  if (size > MAX_TEXT_BYTES) throw new AppError('INVALID_INPUT', `text body is ${size} bytes; at most ${mebibytes(MAX_TEXT_BYTES)} (${MAX_TEXT_BYTES} bytes) is answered as text: use a file for more`)
  return text
}

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+"
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[^\\r\\n\\0]*)?$`)

/** `type/subtype` with optional parameters, on one line. */
export function checkContentType(contentType: unknown): string {
  if (typeof contentType !== 'string') throw new AppError('INVALID_INPUT', 'content type must be a string such as text/csv')
  const trimmed = contentType.trim()
  if (/[\r\n\0]/.test(trimmed)) throw new AppError('INVALID_INPUT', 'content type must be one line (no CR, LF or NUL)')
  if (trimmed.length > MAX_CONTENT_TYPE) throw new AppError('INVALID_INPUT', `content type is ${trimmed.length} characters; at most ${MAX_CONTENT_TYPE}`)
  if (!MEDIA_TYPE.test(trimmed)) throw new AppError('INVALID_INPUT', `content type "${trimmed}" must look like type/subtype, e.g. text/csv or image/png; charset=… parameters may follow a ";"`)
  return trimmed
}

/** The file's own name (folders dropped) and a size within the limit. */
export function checkUpload(file: UploadedFile): UploadedFile {
  const name = basename(file.name.replaceAll('\\', '/')).trim()
  if (name === '' || name === '.' || name === '..') throw new AppError('INVALID_INPUT', `file name "${file.name}" must name a file, e.g. avatar.png`)
  if (name.length > MAX_FILE_NAME || /[\u0000-\u001f\u007f]/.test(name)) throw new AppError('INVALID_INPUT', `file name must be one line of at most ${MAX_FILE_NAME} characters`)
  if (file.bytes.byteLength > MAX_FILE_BYTES) {
    throw new AppError('INVALID_INPUT', `file ${name} is ${file.bytes.byteLength} bytes; a response file may be at most ${mebibytes(MAX_FILE_BYTES)} (${MAX_FILE_BYTES} bytes)`)
  }
  return { name, bytes: file.bytes }
}

/** Base64 (whitespace allowed, as YAML folds it) as bytes; null when it is not base64. */
export function decodeBase64(text: string): Buffer | null {
  const base64 = text.replace(/\s+/g, '')
  return /^[A-Za-z0-9+/]*={0,2}$/.test(base64) && base64.length % 4 !== 1 ? Buffer.from(base64, 'base64') : null
}

/** Stores the file's bytes (once per project for the same name and bytes); its id. */
export function storeFile(context: Context, projectId: number, file: UploadedFile): number {
  const checked = checkUpload(file)
  return context.repos.files.put(projectId, checked.name, checked.bytes)
}

// Rows of response_files never change (another file is another id), so bytes are cached by id,
// one cache per database, up to this many bytes in all.
const CACHE_BYTES = 32 * 1024 * 1024

/**
 * The files a route may answer (its own and its responses') are read when a request matches it,
 * while together they fit the cache: a change made before the answer (during a delay) then cannot
 * drop the bytes the request matched.
 */
export const MATCHED_FILE_BYTES = CACHE_BYTES
const caches = new WeakMap<Db, { entries: Map<number, { name: string; bytes: Uint8Array }>; bytes: number }>()

/**
 * A file's name and bytes as answered; the least recently answered ones leave the cache first.
 * Undefined when the row is gone: the file was replaced since the route was matched.
 */
export function fileContent(context: Context, fileId: number): { name: string; bytes: Uint8Array } | undefined {
  let cache = caches.get(context.db)
  if (!cache) caches.set(context.db, (cache = { entries: new Map(), bytes: 0 }))
  const cached = cache.entries.get(fileId)
  if (cached) {
    cache.entries.delete(fileId)
    cache.entries.set(fileId, cached)
    return cached
  }
  const content = context.repos.files.content(fileId)
  if (!content) return undefined
  if (content.bytes.byteLength <= CACHE_BYTES) {
    cache.entries.set(fileId, content)
    cache.bytes += content.bytes.byteLength
    for (const [id, entry] of cache.entries) {
      if (cache.bytes <= CACHE_BYTES) break
      cache.entries.delete(id)
      cache.bytes -= entry.bytes.byteLength
    }
  }
  return content
}

/** The Content-Type of a text or file body: the configured one, else text/plain or by the file's extension. */
export function bodyContentType(endpoint: Pick<Endpoint, 'bodyType' | 'body' | 'contentType' | 'file'>): string | null {
  if (endpoint.contentType !== null) return endpoint.contentType
  // No body, no type, as an answer without one is sent (a recorded empty 302 or 204 had none).
  if (endpoint.bodyType === 'text') return endpoint.body === '' ? null : TEXT_TYPE
  if (endpoint.bodyType === 'file') return contentTypeOf(endpoint.file?.name ?? '')
  return null
}

/** Whether the headers set a Content-Type of their own (any case), which then wins. */
export function setsContentType(headers: Record<string, string>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')
}
