import { AppError } from '../errors.ts'
import type { Project } from '../model.ts'
import type { Store } from './context.ts'
import { writeTransaction } from './transaction.ts'

/** The project an inbox token names: its share token, or its slug. */
export function projectForInbox(store: Store, token: string): Project {
  const project = store.repos.projects.byShareToken(token) ?? store.repos.projects.bySlug(token)
  if (!project) throw new AppError('NOT_FOUND', 'no project has that inbox token')
  return project
}

export interface ReceivedPayload {
  method: string
  headers: Record<string, string>
  /** The JSON text exactly as received (already checked to parse). */
  body: string
  sizeBytes: number
  sourceIp: string | null
}

export function receivePayload(store: Store, project: Project, payload: ReceivedPayload): { id: string; receivedAt: string } {
  // The project may have been deleted (by another process) while the body was read.
  return writeTransaction(store.db, () => {
    if (!store.repos.projects.byId(project.id)) throw new AppError('NOT_FOUND', 'no project has that inbox token')
    const receivedAt = store.clock.now().toISOString()
    const id = store.repos.inbox.insert({ projectId: project.id, receivedAt, ...payload })
    return { id: String(id), receivedAt }
  })
}
