import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- GraphQL SDL, a gRPC descriptor or a WSDL, beside OpenAPI documents; endpoints point at them alike.
    ALTER TABLE api_specs ADD COLUMN format TEXT NOT NULL DEFAULT 'openapi';
  `)
}
