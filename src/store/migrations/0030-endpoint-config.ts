import type { Database } from 'better-sqlite3'

export function up(db: Database): void {
  db.exec(`
    ALTER TABLE projects ADD COLUMN description TEXT NOT NULL DEFAULT '';
    -- Default seed value for generated data; null means fresh values each time.
    ALTER TABLE projects ADD COLUMN seed_value INTEGER;

    ALTER TABLE endpoints ADD COLUMN schema TEXT;
    ALTER TABLE endpoints ADD COLUMN error_rate REAL NOT NULL DEFAULT 0;
    ALTER TABLE endpoints ADD COLUMN error_status INTEGER NOT NULL DEFAULT 500;

    ALTER TABLE resources ADD COLUMN fields TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE resources ADD COLUMN seed_count INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE resources ADD COLUMN seed_value INTEGER;
    -- Records written into the project file (or template) for this resource.
    ALTER TABLE resources ADD COLUMN seed_records TEXT NOT NULL DEFAULT '[]';

    -- The records as seeded, which reset restores exactly.
    ALTER TABLE collections ADD COLUMN snapshot TEXT NOT NULL DEFAULT '[]';
  `)
}
