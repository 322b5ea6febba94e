import type { Db } from './db.ts'
import { createCollectionRepo } from './collections.ts'
import { createDeliveryRepo } from './deliveries.ts'
import { createEndpointRepo } from './endpoints.ts'
import { createFileRepo } from './files.ts'
import { createInboxRepo } from './inbox.ts'
import { createLeaseRepo } from './lease.ts'
import { createSubscriptionRepo } from './subscriptions.ts'
import { createMetaRepo } from './meta.ts'
import { createProjectRepo } from './projects.ts'
import { createRecordRepo } from './records.ts'
import { createRecordingRepo } from './recordings.ts'
import { createRedeliveryRepo } from './redeliveries.ts'
import { createRelationRepo } from './relations.ts'
import { createResourceRepo } from './resources.ts'
import { createRetentionRepo } from './retention.ts'
import { createSpecRepo } from './specs.ts'
import { createStatsRepo } from './stats.ts'

export type Repos = ReturnType<typeof createRepos>

/** A value made on first use, then kept. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null
  return () => (made ??= { value: make() }).value
}

/**
 * Every repository over one connection. Each prepares its statements when first used, then keeps
 * them: `serve` does not prepare at start the statements of repositories its start and first
 * request never use (collections, relations, the inbox, redeliveries, retention, files, stats).
 */
export function createRepos(db: Db) {
  const meta = once(() => createMetaRepo(db))
  const records = once(() => createRecordRepo(db))
  const projects = once(() => createProjectRepo(db))
  const resources = once(() => createResourceRepo(db))
  const collections = once(() => createCollectionRepo(db))
  const endpoints = once(() => createEndpointRepo(db))
  const relations = once(() => createRelationRepo(db, records()))
  const lease = once(() => createLeaseRepo(db, meta()))
  const inbox = once(() => createInboxRepo(db))
  const subscriptions = once(() => createSubscriptionRepo(db))
  const deliveries = once(() => createDeliveryRepo(db))
  const redeliveries = once(() => createRedeliveryRepo(db))
  const retention = once(() => createRetentionRepo(db))
  const specs = once(() => createSpecRepo(db))
  const files = once(() => createFileRepo(db))
  const recordings = once(() => createRecordingRepo(db))
  const stats = once(() => createStatsRepo(db))
  return {
    get projects() { return projects() },
    get resources() { return resources() },
    get collections() { return collections() },
    get endpoints() { return endpoints() },
    get records() { return records() },
    get relations() { return relations() },
    get meta() { return meta() },
    get lease() { return lease() },
    get inbox() { return inbox() },
    get subscriptions() { return subscriptions() },
    get deliveries() { return deliveries() },
    get redeliveries() { return redeliveries() },
    get retention() { return retention() },
    get specs() { return specs() },
    get files() { return files() },
    get recordings() { return recordings() },
    get stats() { return stats() },
  }
}
