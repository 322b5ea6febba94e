import type { Db } from './db.ts'
import type { AuthScheme, Negotiation, PathRules, Project, ProxySetting } from '../model.ts'

interface ProjectRow {
  id: number
  name: string
  slug: string
  share_token: string
  is_default: number
  description: string
  seed_value: number | null
  path_rules: PathRules
  auth: string | null
  openapi_security: number
  negotiation: Negotiation
  proxy: string | null
  sequence_epoch: number
  created_at: string
}

function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    shareToken: row.share_token,
    isDefault: row.is_default === 1,
    description: row.description,
    seedValue: row.seed_value,
    pathRules: row.path_rules,
    auth: row.auth === null ? null : (JSON.parse(row.auth) as AuthScheme[]),
    openapiSecurity: row.openapi_security === 1,
    negotiation: row.negotiation,
    proxy: row.proxy === null ? null : (JSON.parse(row.proxy) as ProxySetting),
    sequenceEpoch: row.sequence_epoch,
    createdAt: row.created_at,
  }
}

export type ProjectRepo = ReturnType<typeof createProjectRepo>

export function createProjectRepo(db: Db) {
  const all = db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY id')
  const byId = db.prepare<[number], ProjectRow>('SELECT * FROM projects WHERE id = ?')
  const bySlug = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE slug = ?')
  const byToken = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE share_token = ?')
  const insert = db.prepare<[string, string, string, number, string]>(
    'INSERT INTO projects (name, slug, share_token, is_default, created_at) VALUES (?, ?, ?, ?, ?)',
  )
  const remove = db.prepare<[number]>('DELETE FROM projects WHERE id = ?')
  const tokenKey = db.prepare<[number], string>('SELECT token_key FROM projects WHERE id = ?').pluck()
  const updateInfo = db.prepare<[string, string, number | null, number]>('UPDATE projects SET name = ?, description = ?, seed_value = ? WHERE id = ?')
  const setPathRules = db.prepare<[PathRules, number]>('UPDATE projects SET path_rules = ? WHERE id = ?')
  const setAuth = db.prepare<[string | null, number]>('UPDATE projects SET auth = ? WHERE id = ?')
  const setOpenapiSecurity = db.prepare<[number, number]>('UPDATE projects SET openapi_security = ? WHERE id = ?')
  const setNegotiation = db.prepare<[Negotiation, number]>('UPDATE projects SET negotiation = ? WHERE id = ?')
  const setProxy = db.prepare<[string | null, number]>('UPDATE projects SET proxy = ? WHERE id = ?')
  const bumpSequenceEpoch = db.prepare<[number]>('UPDATE projects SET sequence_epoch = sequence_epoch + 1 WHERE id = ?')
  const makeDefault = db.prepare<[number]>('UPDATE projects SET is_default = (id = ?)')
  const promoteOldest = db.prepare(
    'UPDATE projects SET is_default = 1 WHERE id = (SELECT id FROM projects ORDER BY id LIMIT 1) AND NOT EXISTS (SELECT 1 FROM projects WHERE is_default = 1)',
  )

  return {
    list: (): Project[] => all.all().map(toProject),
    byId: (id: number): Project | undefined => {
      const row = byId.get(id)
      return row && toProject(row)
    },
    bySlug: (slug: string): Project | undefined => {
      const row = bySlug.get(slug)
      return row && toProject(row)
    },
    byShareToken: (token: string): Project | undefined => {
      const row = byToken.get(token)
      return row && toProject(row)
    },
    insert(project: { name: string; slug: string; shareToken: string; isDefault: boolean; createdAt: string }): Project {
      const info = insert.run(project.name, project.slug, project.shareToken, project.isDefault ? 1 : 0, project.createdAt)
      return toProject(byId.get(Number(info.lastInsertRowid))!)
    },
    /** This project becomes the default; every other one stops being it. */
    makeDefault: (id: number): void => void makeDefault.run(id),
    /** The secret a token for this project carries (made with the project, gone with it). */
    tokenKey: (id: number): string | undefined => tokenKey.get(id) as string | undefined,
    updateInfo(id: number, info: { name: string; description: string; seedValue: number | null }): void {
      updateInfo.run(info.name, info.description, info.seedValue, id)
    },
    setPathRules: (id: number, mode: PathRules): void => void setPathRules.run(mode, id),
    setAuth: (id: number, auth: AuthScheme[] | null): void => void setAuth.run(auth === null ? null : JSON.stringify(auth), id),
    setOpenapiSecurity: (id: number, on: boolean): void => void setOpenapiSecurity.run(on ? 1 : 0, id),
    setNegotiation: (id: number, mode: Negotiation): void => void setNegotiation.run(mode, id),
    setProxy: (id: number, proxy: ProxySetting | null): void => void setProxy.run(proxy === null ? null : JSON.stringify(proxy), id),
    /** Every sequence of responses in the project starts again at its first (a reset). */
    bumpSequenceEpoch: (id: number): void => void bumpSequenceEpoch.run(id),
    remove(id: number): void {
      remove.run(id)
      promoteOldest.run()
    },
  }
}
