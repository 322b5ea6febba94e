// The worked example of docs/testing.md, run as written: the package imported by its own name
// (so `npm run build` first). The docs' ```ts block must equal the region between the markers,
// and the failure message the docs show must be what a verify prints.
// docs:begin
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startMockApi, type MockApi } from 'mockapi-cli'

// The code under test: it sends the cart as an order and returns the order's id.
async function placeOrder(baseUrl: string, cart: { sku: string; qty: number }[]): Promise<string> {
  const response = await fetch(`${baseUrl}/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ items: cart }),
  })
  if (!response.ok) throw new Error(`the order was refused: ${response.status}`)
  return ((await response.json()) as { id: string }).id
}

describe('checkout', () => {
  let api: MockApi

  beforeAll(async () => {
    api = await startMockApi({
      config: {
        name: 'Shop',
        slug: 'shop',
        endpoints: [{ method: 'POST', path: '/api/orders', status: 201, body: { id: 'o-1' } }],
      },
    })
  })
  beforeEach(() => api.reset()) // the seeded records back, the journal emptied
  afterAll(() => api.close())

  it('sends the cart as one order', async () => {
    const id = await placeOrder(api.project().url, [{ sku: 'A-1', qty: 2 }])

    expect(id).toBe('o-1')
    api.verify(
      { method: 'POST', path: '/api/shop/orders', when: { body: { '$.items[0].sku': 'A-1', '$.items[0].qty': 2 } } },
      { times: 1 },
    )
    api.verifyNoUnmatched()
  })

  it('reads what was sent', async () => {
    await placeOrder(api.project().url, [{ sku: 'B-7', qty: 1 }])

    const [order] = api.requests({ method: 'POST' })
    expect(JSON.parse(order!.body!)).toEqual({ items: [{ sku: 'B-7', qty: 1 }] })
    expect(order!.headers['content-type']).toBe('application/json')
  })
})
// docs:end

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expectFreshBuild, ROOT } from '../_helpers.ts'

const DOC = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8')

function fencedBlocks(language: string): string[] {
  return [...DOC.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((match) => match[1]!)
}

/** Request ids and times differ from run to run; the rest of a message does not. */
const steady = (message: string) => message.replace(/#\d+/g, '#N').replace(/\b\d{2}:\d{2}:\d{2}\.\d{3}\b/g, 'HH:MM:SS.mmm')

describe('docs/testing.md', () => {
  // The example runs the built package: a stale dist/ would fail it for the wrong reason.
  beforeAll(expectFreshBuild)

  it('shows the worked example exactly as this file runs it', () => {
    const source = readFileSync(new URL(import.meta.url), 'utf8')
    const region = source.slice(source.indexOf('// docs:begin\n') + '// docs:begin\n'.length, source.indexOf('// docs:end\n'))
    expect(fencedBlocks('ts')).toEqual([region])
  })

  it('shows the failure messages as verify and verifyNoUnmatched print them', async () => {
    const shown = fencedBlocks('text').filter((block) => block.startsWith('AppError: mockapi verify'))
    expect(shown).toHaveLength(2)
    const api = await startMockApi({ config: { name: 'Shop', slug: 'shop', endpoints: [{ method: 'POST', path: '/api/orders', status: 201, body: { id: 'o-1' } }] } })
    try {
      // The scenario the docs describe: the wrong SKU to the right path, the right one to a misspelled path.
      await placeOrder(api.project().url, [{ sku: 'A-2', qty: 2 }])
      await fetch(`${api.project().url}/order`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ sku: 'A-1', qty: 2 }] }) })
      const printed = [
        () => api.verify({ method: 'POST', path: '/api/shop/orders', when: { body: { '$.items[0].sku': 'A-1', '$.items[0].qty': 2 } } }, { times: 1 }),
        () => api.verifyNoUnmatched(),
      ].map((call) => {
        try {
          call()
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}\n`
        }
        return 'passed'
      })
      expect(printed.map(steady)).toEqual(shown.map(steady))
    } finally {
      await api.close()
    }
  })
})
