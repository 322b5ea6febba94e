import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- webhook | callbacks. A project's one "callbacks" subscription carries the requests its
    -- OpenAPI callbacks send: each event names its own URL, method, headers and body.
    ALTER TABLE subscriptions ADD COLUMN kind TEXT NOT NULL DEFAULT 'webhook';
  `)
}
