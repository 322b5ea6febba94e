import type { UploadedFile } from './bodies.ts'
import type { FakerFactory } from '../engine/generators.ts'
import { AppError } from '../errors.ts'
import type { Endpoint } from '../model.ts'
import { responseView } from '../views.ts'
import type { Context } from './context.ts'
import { configureEndpoint } from './endpoint-config.ts'
import { responseIndex } from './responses.ts'

/** `response add`: `raw` inserted at 1-based `position` (default: the end); the whole list is checked again, nothing stored on refusal. */
export function addResponse(context: Context, endpoint: Endpoint, raw: unknown, position: number | undefined, makeFaker: FakerFactory): Endpoint {
  const list: unknown[] = endpoint.responses.map(responseView)
  if (position !== undefined && (!Number.isInteger(position) || position < 1 || position > list.length + 1)) {
    throw new AppError('INVALID_INPUT', `position ${position} must be from 1 to ${list.length + 1}`)
  }
  list.splice((position ?? list.length + 1) - 1, 0, raw)
  return configureEndpoint(context, endpoint, { responses: list }, makeFaker)
}

/** `response remove`: by 1-based position or name (404 when there is no such response). */
export function removeResponse(context: Context, endpoint: Endpoint, which: string, makeFaker: FakerFactory): Endpoint {
  const index = responseIndex(endpoint, which)
  const list = endpoint.responses.map(responseView).filter((_, i) => i !== index)
  return configureEndpoint(context, endpoint, { responses: list }, makeFaker)
}

/** PUT of one response: `raw` in place of the one at `which` (position or name), the list checked again. */
export function replaceResponse(context: Context, endpoint: Endpoint, which: string, raw: unknown, makeFaker: FakerFactory): Endpoint {
  const index = responseIndex(endpoint, which)
  const list: unknown[] = endpoint.responses.map(responseView)
  list[index] = raw
  return configureEndpoint(context, endpoint, { responses: list }, makeFaker)
}

/** PUT of a response's file as raw bytes: that response answers it (its JSON or text body gives way), the rest of it kept. */
export function setResponseFile(context: Context, endpoint: Endpoint, which: string, file: UploadedFile, contentType: string | undefined, makeFaker: FakerFactory): Endpoint {
  const index = responseIndex(endpoint, which)
  const list: unknown[] = endpoint.responses.map(responseView)
  const { body: _body, text: _text, file: _file, ...rest } = responseView(endpoint.responses[index]!)
  list[index] = { ...rest, file: { name: file.name, base64: Buffer.from(file.bytes).toString('base64') }, ...(contentType !== undefined ? { contentType } : {}) }
  return configureEndpoint(context, endpoint, { responses: list }, makeFaker)
}
