/** Defined beside the kinds that read recorded files (HAR, Postman), which may not import the domain. */
export type { RecordedExchange } from '../kinds/kind.ts'
