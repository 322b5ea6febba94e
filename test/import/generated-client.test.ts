import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { OpenAPIClientAxios } from 'openapi-client-axios'
import { cleanup, cli, ROOT, serve, tempDir } from '../_helpers.ts'

afterAll(cleanup)

const SPEC = join(ROOT, 'fixtures', 'openapi', 'swagger-petstore-v3', 'openapi.yaml')

// A client generated at run time from the same spec (operation ids become methods), as a front end would use one.
describe('a client generated from the spec talks to the imported mock', () => {
  let client: any

  beforeAll(async () => {
    const cwd = tempDir()
    const db = join(cwd, 'm.db')
    expect((await cli(['--db', db, 'project', 'create', 'Petstore', '--slug', 'petstore'], { cwd })).code).toBe(0)
    expect((await cli(['--db', db, 'import', SPEC], { cwd })).code).toBe(0)
    const server = await serve(db)
    const api = new OpenAPIClientAxios({ definition: parse(readFileSync(SPEC, 'utf8')), withServer: { url: `${server.url}/api/petstore` } })
    client = await api.init()
    // The spec's operations are secured (oauth2, or api_key for some): its client sends both, as a front end would.
    client.defaults.headers.common.Authorization = 'Bearer test-token'
    client.defaults.headers.common.api_key = 'test-key'
  })

  it('reads, lists, creates, updates and deletes through the generated methods', async () => {
    const pet = await client.getPetById(7)
    expect(pet.status).toBe(200)
    expect(pet.data).toMatchObject({ name: expect.any(String), photoUrls: expect.any(Array) })
    const found = await client.findPetsByStatus({ status: 'available' })
    expect(found.status).toBe(200)
    expect(Array.isArray(found.data)).toBe(true)
    const added = await client.addPet(null, { name: 'doggie', photoUrls: ['https://example.com/a.png'] })
    expect(added.status).toBe(200)
    const updated = await client.updatePet(null, { id: 10, name: 'doggie', photoUrls: [] })
    expect(updated.status).toBe(200)
    const order = await client.placeOrder(null, { id: 1, petId: 7, quantity: 1, status: 'placed', complete: false })
    expect(order.status).toBe(200)
    expect(order.data).toMatchObject({ status: expect.stringMatching(/placed|approved|delivered/) })
    const inventory = await client.getInventory()
    expect(inventory.status).toBe(200)
    const login = await client.loginUser({ username: 'theUser', password: 'secret' })
    expect(login.status).toBe(200)
    expect(login.headers['x-rate-limit']).toEqual(expect.any(String))
    const removed = await client.deleteUser('theUser')
    expect(removed.status).toBe(200)
  })

  it('is refused 401 with a challenge without the credentials the spec asks for', async () => {
    const refused = await client.getInventory(null, null, { headers: { api_key: '' } }).catch((error: any) => error.response)
    expect(refused.status).toBe(401)
    expect(refused.headers['www-authenticate']).toBe('ApiKey realm="mockapi", in="header", name="api_key"')
  })

  it('gets the documented error shape when the request breaks the spec', async () => {
    const refused = await client.addPet(null, { photoUrls: 'not-a-list' }).catch((error: any) => error.response)
    expect(refused.status).toBe(422)
    expect(refused.data.error.details.map((d: { path: string }) => d.path)).toEqual(expect.arrayContaining(['body/name', 'body/photoUrls']))
  })
})
