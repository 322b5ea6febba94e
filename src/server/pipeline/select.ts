import { compileWhen, explainWhen, requestBudget, type CompiledWhen } from '../../engine/conditions.ts'
import type { MockRequest } from '../../engine/exchange.ts'
import type { Random } from '../../engine/policy.ts'
import { parsePrefer } from '../../engine/prefer.ts'
import { requestFacts } from '../../engine/request-facts.ts'
import { effectiveEndpoint, responseExampleName } from '../../domain/responses.ts'
import type { AnsweredBy, RuleMiss } from '../../events.ts'
import type { Endpoint, EndpointResponse } from '../../model.ts'
import type { Match } from './match.ts'

type EndpointMatch = Extract<Match, { kind: 'endpoint' }>

/** The select stage's output: the match with the chosen response laid over its endpoint, and which one it was. */
export interface Selected {
  match: EndpointMatch
  answeredBy: AnsweredBy | null
  /** Why a rule did not hold that might have, for the journal; null: nothing to say. */
  note: string | null
  /** When no rule held: each rule and its failed conditions, for the journal; null when a rule held or there were none. */
  ruleMisses: RuleMiss[] | null
  /** `Prefer` chose the response (by its example name or status): a preferred code is answered as configured, not simulated. */
  preferred: boolean
}

/**
 * The response `Prefer: example=` names (of the status `code=` asks for, if both are given), else the
 * first answering the status `code=` asks for, as Prism answers the example of that name or status;
 * -1 when none does (or none is asked). Rules, turns and draws are passed over.
 */
function preferredIndex(request: MockRequest, endpoint: Endpoint): number {
  const header = request.headers.get('prefer')
  if (header === null) return -1
  const { code, example } = parsePrefer(header)
  const answers = (response: EndpointResponse) => code === undefined || (response.status ?? endpoint.status) === code
  const named = example === undefined ? -1 : endpoint.responses.findIndex((response, i) => responseExampleName(response, i) === example && answers(response))
  return named >= 0 || code === undefined ? named : endpoint.responses.findIndex(answers)
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

  async function chosenIndex(request: MockRequest, match: EndpointMatch, compiled: Compiled): Promise<{ index: number; note: string | null; ruleMisses: RuleMiss[] | null }> {
    const { endpoint } = match.route
    const count = endpoint.responses.length
    // Taken before any await: concurrent requests get distinct positions.
    if (endpoint.pick === 'sequence') {
      const index = compiled.next % count
      // A HEAD (a link checker, a client's probe) sees the current turn without taking it.
      if (request.method !== 'HEAD') compiled.next = (index + 1) % count
      return { index, note: null, ruleMisses: null }
    }
    if (endpoint.pick === 'random') return { index: Math.floor(random() * count), note: null, ruleMisses: null }
    const fallback = compiled.whens.indexOf(null)
    if (compiled.whens.every((when) => when === null)) return { index: fallback, note: null, ruleMisses: null }
    const facts = await requestFacts(request, match.params, compiled.readsBody)
    const budget = requestBudget()
    const ruled = compiled.whens.findIndex((when) => when !== null && when.test(facts, budget))
    if (ruled >= 0) return { index: ruled, note: budget.skipped, ruleMisses: null }
    // Falling through is rare where rules are meant to hold (a test's request that missed its stub): saying why may cost a second pass.
    const ruleMisses = endpoint.responses.flatMap((response, i): RuleMiss[] => {
      if (response.when === null) return []
      // Each part holding on a fresh budget: the rule failed on the request's spent one.
      const failed = explainWhen(response.when, facts)
      return [{ response: { position: i + 1, name: response.name }, failed: failed.length > 0 ? failed : [`not tested: ${budget.skipped ?? 'over the request\'s budget'}`] }]
    })
    return { index: fallback, note: budget.skipped, ruleMisses }
  }

  return async function select(request: MockRequest, match: EndpointMatch): Promise<Selected> {
    const { endpoint } = match.route
    if (endpoint.responses.length === 0) return { match, answeredBy: null, note: null, ruleMisses: null, preferred: false }
    const preferred = preferredIndex(request, endpoint)
    const { index, note, ruleMisses } = preferred >= 0
      ? { index: preferred, note: null, ruleMisses: null }
      : await chosenIndex(request, match, compiledFor(endpoint, match.project.sequenceEpoch))
    if (index < 0) return { match, answeredBy: null, note, ruleMisses, preferred: false }
    const response = endpoint.responses[index]!
    return {
      match: { ...match, route: { ...match.route, endpoint: effectiveEndpoint(endpoint, response) } },
      answeredBy: { position: index + 1, name: response.name },
      note,
      ruleMisses,
      preferred: preferred >= 0,
    }
  }
}
