import type { KindModule } from './kind.ts'

/** An endpoint answering a fixed (templated) body. */
export const customKind: KindModule<'custom'> = {
  name: 'custom',
  routing: 'route',
  defaultStatus: () => 200,
}
