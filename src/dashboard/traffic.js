// @ts-check
// The stats behind the charts (GET …/stats), kept current: fetched when the live stream opens, again
// a moment after live traffic (a burst costs one fetch, at most one a second), and as each bucket
// ends, so the window moves on with nothing happening. The counting is the server's alone: the
// charts show what the stats endpoint answers, as scripts read it.

import { getStats } from './api.js'
import { $, guard } from './dom.js'
import { deliveryChart, replaceChart, requestChart } from './charts.js'
import { state, stillCurrent } from './state.js'

/** @typedef {import('./api.js').StatsView} StatsView */

/** The Requests tab's chart: the last few minutes, in 5 s buckets. */
export const REQUESTS_WINDOW = '5m'
/** The subscriptions' charts: deliveries are fewer and slower, so the last hour, in 30 s buckets. */
export const DELIVERIES_WINDOW = '1h'
/** Live traffic is fetched again this long after the first event of a burst. */
const AFTER_TRAFFIC_MS = 1000
const RETRY_MS = 5000

/**
 * One window's stats, fetched and drawn by `draw`, then fetched again on its own schedule.
 * @param {string} window
 * @param {(stats: StatsView) => void} draw
 */
function feed(window, draw) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer
  let dueAt = Infinity
  let generation = -1

  /** @param {number} delayMs */
  const schedule = (delayMs) => {
    clearTimeout(timer)
    dueAt = Date.now() + delayMs
    timer = setTimeout(load, delayMs)
  }

  async function load() {
    clearTimeout(timer)
    dueAt = Infinity
    const current = stillCurrent()
    generation = state.generation
    const stats = await guard(() => getStats(window), () => {})
    if (!current()) return
    // Not answered (the server restarting): tried again a little later; the chart stays as it was.
    if (!stats) return schedule(RETRY_MS)
    draw(stats)
    // Next when the bucket under way ends (by the server's clock, as far as the two agree).
    const bucketMs = stats.bucketSeconds * 1000
    schedule(Math.min(Math.max(Date.parse(stats.to) - Date.now(), 0), bucketMs) + 200)
  }

  return {
    load,
    /** Traffic came: fetched within a second, unless a fetch is due sooner. */
    poke() {
      if (generation !== state.generation) return
      if (dueAt - Date.now() > AFTER_TRAFFIC_MS) schedule(AFTER_TRAFFIC_MS)
    },
    stop() {
      clearTimeout(timer)
      dueAt = Infinity
      generation = -1
    },
  }
}

function drawRequests() {
  if (state.requestStats) replaceChart($('request-chart'), requestChart(state.requestStats))
}

/** Each subscription's chart in its card, from the stats fetched last. */
export function drawDeliveries() {
  const stats = state.deliveryStats
  if (!stats) return
  for (const [subscriptionId, { box, name }] of state.deliveryCharts) replaceChart(box, deliveryChart(stats, subscriptionId, name))
}

const requests = feed(REQUESTS_WINDOW, (stats) => {
  state.requestStats = stats
  drawRequests()
})
const deliveries = feed(DELIVERIES_WINDOW, (stats) => {
  state.deliveryStats = stats
  drawDeliveries()
})

/** Both charts fetched now (the stream opened: what happened before, or while it was down). */
export function loadTraffic() {
  requests.load()
  deliveries.load()
}

/** A project left, or signed out: nothing more is fetched for it. */
export function stopTraffic() {
  requests.stop()
  deliveries.stop()
  $('request-chart').replaceChildren()
}

export const onRequestTraffic = () => requests.poke()
export const onDeliveryTraffic = () => deliveries.poke()
