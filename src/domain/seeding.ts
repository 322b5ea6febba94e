import { AppError } from '../errors.ts'
import type { Resource } from '../model.ts'
import type { IdType } from '../store/collections.ts'
import type { ResourceSeed } from '../store/resources.ts'
import { checkFields, recordGenerator, type FakerFactory } from '../engine/generators.ts'
import { asLong, counted, countProgress, LONG_STEP_ITEMS, type ProgressOptions } from '../engine/progress.ts'
import type { Context } from './context.ts'
import { insertRecords } from './records.ts'
import { storeSingular } from './singulars.ts'
import { writeTransaction } from './transaction.ts'

export const MAX_SEED_COUNT = 100_000

export function checkSeed(seed: ResourceSeed, makeFaker: FakerFactory): ResourceSeed {
  if (!Number.isInteger(seed.seedCount) || seed.seedCount < 0 || seed.seedCount > MAX_SEED_COUNT) {
    throw new AppError('INVALID_INPUT', `seed count ${seed.seedCount} must be a whole number from 0 to ${MAX_SEED_COUNT}`)
  }
  if (seed.seedValue !== null && !Number.isSafeInteger(seed.seedValue)) {
    throw new AppError('INVALID_INPUT', `seed value ${seed.seedValue} must be an integer`)
  }
  if (seed.seedCount > 0 && Object.keys(seed.fields).length === 0) {
    throw new AppError('INVALID_INPUT', 'generated records need field generators (--fields "title:lorem.sentence,…")')
  }
  checkFields(seed.fields, makeFaker())
  return seed
}

function* generatedRecords(fields: Record<string, string>, faker: ReturnType<FakerFactory>, count: number): Generator<Record<string, unknown>> {
  const draw = recordGenerator(fields, faker)
  for (let i = 0; i < count; i += 1) yield draw()
}

/**
 * The type of generated ids that a collection's literal seed records ask for: strings when every
 * id they give is a string (json-server 1.x writes `"id": "1"`), numbers when any is a number;
 * null when they give none (a `--stateful` import's type, set from its spec, stays).
 */
function seededIdType(resources: Resource[]): IdType | null {
  const ids = resources.filter((r) => !r.singular).flatMap((r) => r.seedRecords.map((record) => record.id)).filter((id) => id !== undefined)
  if (ids.length === 0) return null
  return ids.every((id) => typeof id === 'string') ? 'string' : 'number'
}

/**
 * Empties a collection and seeds it again from its resources: their literal records, then their
 * generated ones (reproducible when a seed value is set). The result becomes the reset snapshot.
 */
export function reseedCollection(context: Context, collectionId: number, makeFaker: FakerFactory, options: ProgressOptions = {}): number {
  return writeTransaction(context.db, () => {
    const { records, collections } = context.repos
    records.removeAll(collectionId)
    collections.setNextId(collectionId, 1)
    const resources = context.repos.resources.listByCollection(collectionId)
    const idType = seededIdType(resources)
    if (idType !== null) collections.setIdType(collectionId, idType)
    for (const resource of resources) {
      if (resource.singular) {
        storeSingular(context, collectionId, resource.seedRecords[0] ?? {})
        continue
      }
      insertRecords(context, collectionId, counted(seededRecords(context, resource, makeFaker), seedingProgress(resource, options)))
    }
    records.saveSnapshot(collectionId)
    return records.count(collectionId)
  })
}

function seedingProgress(resource: Resource, { onProgress }: ProgressOptions) {
  const total = resource.seedRecords.length + resource.seedCount
  return countProgress(onProgress, `seeding ${resource.path}`, total)
}

/** A resource's seed: its literal records, then its generated ones (reproducible when a seed value is set). */
function* seededRecords(context: Context, resource: Resource, makeFaker: FakerFactory): Generator<Record<string, unknown>> {
  yield* resource.seedRecords
  if (resource.seedCount === 0) return
  const faker = makeFaker(resource.seedValue ?? context.repos.projects.byId(resource.projectId)?.seedValue ?? null)
  yield* generatedRecords(resource.fields, faker, resource.seedCount)
}

/** Sets a resource's seed (fields, count, value, literal records) and reseeds its collection. */
export function seedResource(context: Context, resource: Resource, seed: ResourceSeed, makeFaker: FakerFactory, options: ProgressOptions = {}): number {
  checkSeed(seed, makeFaker)
  return writeTransaction(context.db, () => {
    context.repos.resources.setSeed(resource.id, seed)
    return reseedCollection(context, resource.collectionId, makeFaker, options)
  })
}

/** What seeding a new resource did: the records it added, and those already in its collection that it kept. */
export interface NewResourceSeeding {
  added: number
  kept: number
  /** The resource that already kept records in the collection (`/comments` for `/posts/:postId/comments`), if any. */
  sharedWith: string | null
}

/**
 * Seeds a resource just made. Alone in its collection, it fills it as `seedResource` does. Sharing
 * one that another resource already keeps (`/posts/:postId/comments` beside `/comments`), the
 * records there are what clients wrote and are kept: its own seed is added after them, and to the
 * reset snapshot, so `reset` gives back every resource's seed.
 */
export function seedNewResource(context: Context, resource: Resource, seed: ResourceSeed, makeFaker: FakerFactory, options: ProgressOptions = {}): NewResourceSeeding {
  checkSeed(seed, makeFaker)
  return writeTransaction(context.db, () => {
    const { records, resources } = context.repos
    const other = resources.listByCollection(resource.collectionId).find((r) => r.id !== resource.id)
    resources.setSeed(resource.id, seed)
    if (other === undefined) return { added: reseedCollection(context, resource.collectionId, makeFaker, options), kept: 0, sharedWith: null }
    const kept = records.count(resource.collectionId)
    const after = records.lastSeq(resource.collectionId)
    const seeded = resources.byId(resource.id)!
    insertRecords(context, resource.collectionId, counted(seededRecords(context, seeded, makeFaker), seedingProgress(seeded, options)))
    records.snapshotAfter(resource.collectionId, after)
    return { added: records.count(resource.collectionId) - kept, kept, sharedWith: other.path }
  })
}

/** Puts every collection of the project back to its seeded records. */
export function resetProject(context: Context, projectId: number, options: ProgressOptions = {}): { collections: number; records: number } {
  return writeTransaction(context.db, () => {
    const { collections, records } = context.repos
    let restored = 0
    const ids = collections.listIds(projectId)
    // Each collection is restored in one statement: with many records, each report is drawn at once, as nothing is heard between them.
    const many = options.onProgress !== undefined && ids.reduce((n, id) => n + records.count(id), 0) >= LONG_STEP_ITEMS
    const progress = countProgress(many ? asLong(options.onProgress) : options.onProgress, 'resetting collections', ids.length)
    for (const collectionId of ids) {
      restored += records.restoreSnapshot(collectionId)
      collections.setNextId(collectionId, records.maxIntegerId(collectionId) + 1)
      progress.add()
    }
    progress.finish()
    context.repos.projects.bumpSequenceEpoch(projectId)
    return { collections: ids.length, records: restored }
  })
}
