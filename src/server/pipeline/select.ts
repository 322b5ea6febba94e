import { compileWhen, requestBudget, type CompiledWhen } from '../../engine/conditions.ts'
import type { MockRequest } from '../../engine/exchange.ts'
import type { Random } from '../../engine/policy.ts'
import { requestFacts } from '../../engine/request-facts.ts'
import { effectiveEndpoint } from '../../domain/responses.ts'
import type { AnsweredBy } from '../../events.ts'
import type { Endpoint } from '../../model.ts'
import type { Match } from './match.ts'

type EndpointMatch = Extract<Match, { kind: 'endpoint' }>

/** The select stage's output: the match with the chosen response laid over its endpoint, and which one it was. */
export interface Selected {
  match: EndpointMatch
  answeredBy: AnsweredBy | null
  /** Why a rule did not hold that might have, for the request log; null: nothing to say. */
  note: string | null
}

/** An endpoint's responses ready to pick from, with where its sequence is. */
interface Compiled {
  key: string
  whens: (CompiledWhen | null)[]
  readsBody: boolean
  next: number
}

// Past this many endpoints remembered, the memory starts again (sequences restart), so deleted endpoints cannot pile up.
const MAX_REMEMBERED = 10_000

/**
 * One per server: picks the response of each request. Sequences live in memory for as long as the
 * server runs, per endpoint; a catalog rebuild (any configuration change) keeps them unless this
 * endpoint's responses changed or its project was reset (`sequenceEpoch`), which start it again.
 */
export function createSelector(random: Random) {
  // The snapshot's endpoint objects first (no key to build per request), then by id across rebuilds.
  const bySnapshot = new WeakMap<Endpoint, Compiled>()
  const byId = new Map<number, Compiled>()

  function compiledFor(endpoint: Endpoint, epoch: number): Compiled {
    const known = bySnapshot.get(endpoint)
    if (known) return known
    const key = `${endpoint.createdAt}|${epoch}|${endpoint.pick}|${JSON.stringify(endpoint.responses)}`
    let compiled = byId.get(endpoint.id)
    if (!compiled || compiled.key !== key) {
      const whens = endpoint.responses.map((response) => (response.when === null ? null : compileWhen(response.when)))
      compiled = { key, whens, readsBody: whens.some((when) => when?.readsBody === true), next: 0 }
      if (byId.size >= MAX_REMEMBERED) byId.clear()
      byId.set(endpoint.id, compiled)
    }
    bySnapshot.set(endpoint, compiled)
    return compiled
  }

  async function chosenIndex(request: MockRequest, match: EndpointMatch, compiled: Compiled): Promise<{ index: number; note: string | null }> {
    const { endpoint } = match.route
    const count = endpoint.responses.length
    // Taken before any await: concurrent requests get distinct positions.
    if (endpoint.pick === 'sequence') {
      const index = compiled.next % count
      compiled.next = (index + 1) % count
      return { index, note: null }
    }
    if (endpoint.pick === 'random') return { index: Math.floor(random() * count), note: null }
    const fallback = compiled.whens.indexOf(null)
    if (compiled.whens.every((when) => when === null)) return { index: fallback, note: null }
    const facts = await requestFacts(request, match.params, compiled.readsBody)
    const budget = requestBudget()
    const ruled = compiled.whens.findIndex((when) => when !== null && when.test(facts, budget))
    return { index: ruled >= 0 ? ruled : fallback, note: budget.skipped }
  }

  return async function select(request: MockRequest, match: EndpointMatch): Promise<Selected> {
    const { endpoint } = match.route
    if (endpoint.responses.length === 0) return { match, answeredBy: null, note: null }
    const compiled = compiledFor(endpoint, match.project.sequenceEpoch)
    const { index, note } = await chosenIndex(request, match, compiled)
    if (index < 0) return { match, answeredBy: null, note }
    const response = endpoint.responses[index]!
    return {
      match: { ...match, route: { ...match.route, endpoint: effectiveEndpoint(endpoint, response) } },
      answeredBy: { position: index + 1, name: response.name },
      note,
    }
  }
}
