import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    -- Signs the management API's JWTs; one per database file, made with it.
    INSERT INTO meta (key, value) VALUES ('jwt_secret', lower(hex(randomblob(32))));

    CREATE TABLE inbox (
      id          INTEGER PRIMARY KEY,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      received_at TEXT NOT NULL,
      method      TEXT NOT NULL,
      headers     TEXT NOT NULL,
      body        TEXT NOT NULL,  -- the JSON text exactly as received
      size_bytes  INTEGER NOT NULL,
      source_ip   TEXT
    );
    CREATE INDEX inbox_by_project ON inbox(project_id, id);

    CREATE TABLE subscriptions (
      id          INTEGER PRIMARY KEY,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name        TEXT NOT NULL,
      target_url  TEXT NOT NULL,
      events      TEXT NOT NULL,
      enabled     INTEGER NOT NULL DEFAULT 1,
      secret      TEXT NOT NULL,
      created_at  TEXT NOT NULL
    );
    CREATE INDEX subscriptions_by_project ON subscriptions(project_id);

    CREATE TABLE events (
      id          TEXT PRIMARY KEY,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      type        TEXT NOT NULL,
      payload     TEXT NOT NULL,  -- the envelope, sent byte for byte on every attempt
      created_at  TEXT NOT NULL
    );

    -- One row per event and subscription; state: pending, sending, succeeded, failed, canceled.
    CREATE TABLE deliveries (
      id              INTEGER PRIMARY KEY,
      event_id        TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
      subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
      state           TEXT NOT NULL,
      attempts        INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,  -- epoch ms
      created_at      TEXT NOT NULL
    );
    CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at);
    CREATE INDEX deliveries_by_subscription ON deliveries(subscription_id, state);

    CREATE TABLE attempts (
      id              INTEGER PRIMARY KEY,
      delivery_id     INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
      subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
      event_id        TEXT NOT NULL,
      event_type      TEXT NOT NULL,
      attempt         INTEGER NOT NULL,
      status_code     INTEGER,
      succeeded       INTEGER NOT NULL,
      error           TEXT,
      duration_ms     INTEGER NOT NULL,
      timestamp       TEXT NOT NULL
    );
    CREATE INDEX attempts_by_subscription ON attempts(subscription_id, id);
  `)
}
