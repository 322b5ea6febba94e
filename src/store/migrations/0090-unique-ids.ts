import type { Database } from 'better-sqlite3'

/**
 * Every table whose ids reach users or tokens, rebuilt with AUTOINCREMENT: SQLite otherwise hands
 * a deleted row's id (the highest one) to the next insert, so a new project took a deleted one's
 * id, and a token, URL or log line naming the old one pointed at the new. Columns are as the
 * earlier migrations left them; projects gain `token_key`, the secret a project-scoped token
 * carries, which dies with its project.
 */
const TABLES: readonly { name: string; columns: string; indexes: readonly string[] }[] = [
  {
    name: 'projects',
    columns: `
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      name        TEXT NOT NULL,
      slug        TEXT NOT NULL UNIQUE,
      share_token TEXT NOT NULL UNIQUE,
      is_default  INTEGER NOT NULL DEFAULT 0,
      created_at  TEXT NOT NULL,
      description TEXT NOT NULL DEFAULT '',
      seed_value  INTEGER,
      token_key   TEXT NOT NULL DEFAULT (lower(hex(randomblob(16))))`,
    indexes: [],
  },
  {
    name: 'collections',
    columns: `
      id           INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name         TEXT NOT NULL,
      next_id      INTEGER NOT NULL DEFAULT 1,
      record_count INTEGER NOT NULL DEFAULT 0,
      UNIQUE (project_id, name)`,
    indexes: [],
  },
  {
    name: 'resources',
    columns: `
      id            INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id    INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
      path          TEXT NOT NULL,
      created_at    TEXT NOT NULL,
      fields        TEXT NOT NULL DEFAULT '{}',
      seed_count    INTEGER NOT NULL DEFAULT 0,
      seed_value    INTEGER,
      seed_records  TEXT NOT NULL DEFAULT '[]',
      UNIQUE (project_id, path)`,
    indexes: [],
  },
  {
    name: 'api_specs',
    columns: `
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      title       TEXT NOT NULL,
      version     TEXT NOT NULL,
      source      TEXT NOT NULL,
      document    TEXT NOT NULL,
      imported_at TEXT NOT NULL,
      format      TEXT NOT NULL DEFAULT 'openapi',
      UNIQUE (project_id, title)`,
    indexes: [],
  },
  {
    name: 'endpoints',
    columns: `
      id           INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id   INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      resource_id  INTEGER REFERENCES resources(id) ON DELETE CASCADE,
      method       TEXT NOT NULL,
      path         TEXT NOT NULL,
      kind         TEXT NOT NULL,
      action       TEXT,
      status       INTEGER NOT NULL,
      headers      TEXT NOT NULL DEFAULT '{}',
      delay_ms     INTEGER NOT NULL DEFAULT 0,
      body         TEXT,
      created_at   TEXT NOT NULL,
      schema       TEXT,
      error_rate   REAL NOT NULL DEFAULT 0,
      error_status INTEGER NOT NULL DEFAULT 500,
      spec_id      INTEGER REFERENCES api_specs(id) ON DELETE CASCADE,
      operation    TEXT,
      UNIQUE (project_id, method, path)`,
    indexes: [
      'CREATE INDEX endpoints_by_resource ON endpoints(resource_id)',
      'CREATE INDEX endpoints_spec ON endpoints(spec_id)',
    ],
  },
  {
    name: 'inbox',
    columns: `
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      received_at TEXT NOT NULL,
      method      TEXT NOT NULL,
      headers     TEXT NOT NULL,
      body        TEXT NOT NULL,
      size_bytes  INTEGER NOT NULL,
      source_ip   TEXT`,
    indexes: ['CREATE INDEX inbox_by_project ON inbox(project_id, id)'],
  },
  {
    name: 'subscriptions',
    columns: `
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      project_id  INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
      name        TEXT NOT NULL,
      target_url  TEXT NOT NULL,
      events      TEXT NOT NULL,
      enabled     INTEGER NOT NULL DEFAULT 1,
      secret      TEXT NOT NULL,
      created_at  TEXT NOT NULL`,
    indexes: ['CREATE INDEX subscriptions_by_project ON subscriptions(project_id)'],
  },
  {
    name: 'deliveries',
    columns: `
      id              INTEGER PRIMARY KEY AUTOINCREMENT,
      event_id        TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
      subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
      state           TEXT NOT NULL,
      attempts        INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL,
      created_at      TEXT NOT NULL`,
    indexes: [
      'CREATE INDEX deliveries_due ON deliveries(state, next_attempt_at)',
      'CREATE INDEX deliveries_by_subscription ON deliveries(subscription_id, state)',
      'CREATE INDEX deliveries_by_event ON deliveries(event_id)',
    ],
  },
  {
    name: 'attempts',
    columns: `
      id              INTEGER PRIMARY KEY AUTOINCREMENT,
      delivery_id     INTEGER NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
      subscription_id INTEGER NOT NULL REFERENCES subscriptions(id) ON DELETE CASCADE,
      event_id        TEXT NOT NULL,
      event_type      TEXT NOT NULL,
      attempt         INTEGER NOT NULL,
      status_code     INTEGER,
      succeeded       INTEGER NOT NULL,
      error           TEXT,
      duration_ms     INTEGER NOT NULL,
      timestamp       TEXT NOT NULL`,
    indexes: ['CREATE INDEX attempts_by_subscription ON attempts(subscription_id, id)'],
  },
]

function columnsOf(db: Database, table: string): string[] {
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name)
}

/**
 * SQLite's procedure for changing a table's definition: create the new one, copy, drop, rename.
 * migrate() runs this with foreign keys off (a drop would otherwise cascade-delete every row that
 * refers to the table) and checks them before it commits. The legacy rename leaves the triggers
 * on `records`, which name `collections`, as they are: they resolve to the new table by name.
 */
export function up(db: Database): void {
  db.pragma('legacy_alter_table = ON')
  try {
    for (const table of TABLES) {
      const rebuilt = `${table.name}_rebuilt`
      db.exec(`CREATE TABLE ${rebuilt} (${table.columns})`)
      const oldColumns = new Set(columnsOf(db, table.name))
      const kept = columnsOf(db, rebuilt).filter((name) => oldColumns.has(name)).join(', ')
      db.exec(`INSERT INTO ${rebuilt} (${kept}) SELECT ${kept} FROM ${table.name} ORDER BY id`)
      db.exec(`DROP TABLE ${table.name}`)
      db.exec(`ALTER TABLE ${rebuilt} RENAME TO ${table.name}`)
      for (const index of table.indexes) db.exec(index)
    }
  } finally {
    db.pragma('legacy_alter_table = OFF')
  }
}
