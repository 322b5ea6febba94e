// The posts database of the floor and its layers (bare-h3-sqlite.mjs, layer-sqlite.mjs): one
// source for the pragmas and statements, so the servers compared do the same SQLite work.
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const Database = require('better-sqlite3')

/** The database at `file`, with mockapi's pragmas. */
export function openPosts(file) {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  return db
}

/** One post as stored, a page or every post as the stored texts in one array, the count, a created post with its id. */
export function postStatements(db) {
  return {
    one: db.prepare('SELECT data FROM posts WHERE id = ?').pluck(),
    // The stored texts joined into an array by SQLite, without parsing them again (as json_group_array(json(data)) would).
    page: db.prepare("SELECT '[' || coalesce(group_concat(data, ','), '') || ']' FROM (SELECT data FROM posts ORDER BY id LIMIT ? OFFSET ?)").pluck(),
    all: db.prepare("SELECT '[' || coalesce(group_concat(data, ','), '') || ']' FROM (SELECT data FROM posts ORDER BY id)").pluck(),
    count: db.prepare('SELECT count(*) FROM posts').pluck(),
    create: db.prepare("INSERT INTO posts (id, data) SELECT next, json_patch(json_object('id', next), ?) FROM (SELECT coalesce(max(id), 0) + 1 AS next FROM posts) RETURNING data").pluck(),
  }
}
