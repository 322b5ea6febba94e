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

/** Every repository over one connection; statements are prepared here, once. */
export function createRepos(db: Db) {
  const meta = createMetaRepo(db)
  const records = createRecordRepo(db)
  return {
    projects: createProjectRepo(db),
    resources: createResourceRepo(db),
    collections: createCollectionRepo(db),
    endpoints: createEndpointRepo(db),
    records,
    relations: createRelationRepo(db, records),
    meta,
    lease: createLeaseRepo(db, meta),
    inbox: createInboxRepo(db),
    subscriptions: createSubscriptionRepo(db),
    deliveries: createDeliveryRepo(db),
    redeliveries: createRedeliveryRepo(db),
    retention: createRetentionRepo(db),
    specs: createSpecRepo(db),
    files: createFileRepo(db),
    recordings: createRecordingRepo(db),
    stats: createStatsRepo(db),
  }
}
