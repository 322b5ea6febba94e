import type { Project } from '../model.ts'
import type { ProjectFile } from '../templates/loader.ts'
import type { Store } from './context.ts'
import { addEndpoint } from './endpoints.ts'
import { createProject } from './projects.ts'
import { insertRecord } from './records.ts'
import { createResource } from './resources.ts'
import { writeTransaction } from './transaction.ts'

/** Adds a project file's resources, records and endpoints to a project, all or nothing. */
export function addProjectFile(store: Store, project: Project, file: ProjectFile): { warnings: string[] } {
  return writeTransaction(store.db, () => {
    const warnings: string[] = []
    for (const spec of file.resources) {
      const { resource, warnings: pathWarnings } = createResource(store, { project: project.slug, path: spec.path })
      warnings.push(...pathWarnings)
      for (const record of spec.records) insertRecord(store, resource.collectionId, record)
    }
    for (const spec of file.endpoints) {
      const { warnings: pathWarnings } = addEndpoint(store, {
        project: project.slug,
        method: spec.method,
        path: spec.path,
        status: spec.status,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        delayMs: spec.delay,
        headers: spec.headers,
      })
      warnings.push(...pathWarnings)
    }
    return { warnings }
  })
}

/** A new project filled from a project file, in one transaction. */
export function createProjectFromFile(store: Store, input: { name?: string | undefined; slug?: string | undefined }, file: ProjectFile): Project {
  return writeTransaction(store.db, () => {
    const project = createProject(store, { name: input.name ?? file.name, slug: input.slug })
    addProjectFile(store, project, file)
    return project
  })
}
