import type { KindModule } from './kind.ts'

/** A REST resource's endpoints: they list, create, read, replace, patch and delete its records. */
export const resourceKind: KindModule<'resource'> = {
  name: 'resource',
  routing: 'route',
  defaultStatus: (endpoint) => (endpoint.action === 'create' ? 201 : 200),
}
