import { AppError } from '../errors.ts'
import type { Project } from '../model.ts'
import type { Context } from './context.ts'
import { writeTransaction } from './transaction.ts'

/** The project an inbox token names: its share token, or its slug. */
export function projectForInbox(context: Context, token: string): Project {
  const project = context.repos.projects.byShareToken(token) ?? context.repos.projects.bySlug(token)
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

export function receivePayload(context: Context, project: Project, payload: ReceivedPayload): { id: string; receivedAt: string } {
  // The project may have been deleted (by another process) while the body was read.
  return writeTransaction(context.db, () => {
    if (!context.repos.projects.byId(project.id)) throw new AppError('NOT_FOUND', 'no project has that inbox token')
    const receivedAt = context.clock.now().toISOString()
    const id = context.repos.inbox.insert({ projectId: project.id, receivedAt, ...payload })
    return { id: String(id), receivedAt }
  })
}
