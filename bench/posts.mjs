// The data every server of the bench holds: the same posts, about 311 bytes of JSON each, and the
// same JSON to POST. Deterministic, so every run and every server answers the same bytes.
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'

const STATUSES = ['published', 'draft', 'archived']
const WORDS = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat'.split(' ')
const POST_BYTES = 311

function text(seed, length) {
  let out = ''
  for (let k = 0; out.length < length; k += 1) out += (out ? ' ' : '') + WORDS[(seed * 31 + k * 7) % WORDS.length]
  return out.slice(0, length).trimEnd()
}

/** Post `i` (1-based): its body is cut so the whole post is 311 bytes of JSON (312 from id 1,000,000). */
export function post(i) {
  const fields = {
    id: i, userId: 1 + (i % 100), title: `Post number ${i}: ${text(i, 24)}`, body: '',
    status: STATUSES[i % 3], views: (i * 7919) % 1000,
    createdAt: new Date(1_700_000_000_000 + ((i * 7919) % 100_000) * 60_000).toISOString(),
  }
  fields.body = text(i + 1, POST_BYTES - JSON.stringify(fields).length)
  return fields
}

export const posts = (count) => Array.from({ length: count }, (_, i) => post(i + 1))

/** What every POST scenario sends: a post without an id, the same size as the stored ones. */
export const NEW_POST = (({ id, ...rest }) => JSON.stringify({ ...rest, title: 'A new post' }))(post(1))

/** A json-server database `{"posts": [...]}`, streamed so a million posts never sit in one string. */
export async function writeDbJson(file, count) {
  const out = createWriteStream(file)
  out.write('{"posts":[')
  for (let i = 1; i <= count; i += 1) {
    if (!out.write((i > 1 ? ',' : '') + JSON.stringify(post(i)))) await once(out, 'drain')
  }
  out.end(']}')
  await once(out, 'finish')
}

/** Which requests each scenario sends, the same for every server that speaks json-server's dialect. */
export const ITEM_ID = 500
export const PAGE = { page: 3, limit: 20, firstId: 41 }
/** The filtered + sorted page over a large collection: an equality, a sort on a date, the page after the first. */
export const FILTERED = 'status=published&sort=createdAt&order=desc&page=2&limit=20'
/** Both json-server dialects' operators, a full-text q and two sort fields, on the page after the first. */
export const OPERATORS_AND_Q = 'views_gte=500&status:ne=archived&q=number%2012&sort=-views,title&_page=2&_per_page=20'

/** An OpenAPI 3.0 document of the same posts, with examples taken from them, for Prism. */
export function postsOpenApi(count) {
  const all = posts(count)
  const schema = {
    type: 'object',
    properties: {
      id: { type: 'integer' }, userId: { type: 'integer' }, title: { type: 'string' }, body: { type: 'string' },
      status: { type: 'string', enum: STATUSES }, views: { type: 'integer' }, createdAt: { type: 'string', format: 'date-time' },
    },
  }
  const json = (example) => ({ 'application/json': { schema, ...example } })
  const list = (examples) => ({ 'application/json': { schema: { type: 'array', items: schema }, examples } })
  const start = (PAGE.page - 1) * PAGE.limit
  return {
    openapi: '3.0.3',
    info: { title: 'posts', version: '1.0.0' },
    paths: {
      '/posts': {
        get: {
          parameters: [
            { name: 'page', in: 'query', schema: { type: 'integer' } },
            { name: 'limit', in: 'query', schema: { type: 'integer' } },
          ],
          // The first example is the default; GET all asks for the other with `Prefer: example=all`.
          responses: { 200: { description: 'posts', content: list({ page: { value: all.slice(start, start + PAGE.limit) }, all: { value: all } }) } },
        },
        post: {
          requestBody: { content: { 'application/json': { schema } } },
          responses: { 201: { description: 'created', content: json({ example: { ...JSON.parse(NEW_POST), id: count + 1 } }) } },
        },
      },
      '/posts/{id}': {
        get: {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: { 200: { description: 'a post', content: json({ example: all[ITEM_ID - 1] }) } },
        },
      },
    },
  }
}
