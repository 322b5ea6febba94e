import type { FakerFactory } from '../engine/generators.ts'
import { AppError } from '../errors.ts'
import type { Endpoint } from '../model.ts'
import { responseView } from '../views.ts'
import type { Context } from './context.ts'
import { configureEndpoint } from './endpoint-config.ts'
import { responseIndex } from './responses.ts'
import { writeTransaction } from './transaction.ts'

/**
 * `edit` applied under the write lock to the endpoint as it is now, not as the caller read it
 * before awaiting a body or faker: another writer's change to the list in between is kept, and a
 * position or name is resolved against the list it edits.
 */
function editResponses(context: Context, endpoint: Endpoint, makeFaker: FakerFactory, edit: (fresh: Endpoint) => unknown[]): Endpoint {
  return writeTransaction(context.db, () => {
    const fresh = context.repos.endpoints.byId(endpoint.id)
    if (!fresh) throw new AppError('NOT_FOUND', `endpoint ${endpoint.id} (${endpoint.method} ${endpoint.path}) was deleted meanwhile`)
    return configureEndpoint(context, fresh, { responses: edit(fresh) }, makeFaker)
  })
}

/** `response add`: `raw` inserted at 1-based `position` (default: the end); the whole list is checked again, nothing stored on refusal. */
export function addResponse(context: Context, endpoint: Endpoint, raw: unknown, position: number | undefined, makeFaker: FakerFactory): Endpoint {
  return editResponses(context, endpoint, makeFaker, (fresh) => {
    const list: unknown[] = fresh.responses.map(responseView)
    if (position !== undefined && (!Number.isInteger(position) || position < 1 || position > list.length + 1)) {
      throw new AppError('INVALID_INPUT', `position ${position} must be from 1 to ${list.length + 1}`)
    }
    list.splice((position ?? list.length + 1) - 1, 0, raw)
    return list
  })
}

/** `response remove`: by 1-based position or name (404 when there is no such response). */
export function removeResponse(context: Context, endpoint: Endpoint, which: string, makeFaker: FakerFactory): Endpoint {
  return editResponses(context, endpoint, makeFaker, (fresh) => {
    const index = responseIndex(fresh, which)
    return fresh.responses.map(responseView).filter((_, i) => i !== index)
  })
}

/** PUT of one response: `raw` in place of the one at `which` (position or name), the list checked again. */
export function replaceResponse(context: Context, endpoint: Endpoint, which: string, raw: unknown, makeFaker: FakerFactory): Endpoint {
  return editResponses(context, endpoint, makeFaker, (fresh) => {
    const index = responseIndex(fresh, which)
    const list: unknown[] = fresh.responses.map(responseView)
    list[index] = raw
    return list
  })
}
