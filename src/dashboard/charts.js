// @ts-check
// Charts of the stats (GET …/stats), drawn as SVG: a bar per bucket, stacked by kind (status class,
// delivery outcome), with the percentile lines over them. Colours are the theme's CSS variables
// (classes in app.css), so light and dark follow the page. Each bucket is focusable (one tab stop per
// chart, the arrow keys move between buckets) and shows its numbers in a tooltip on hover and on
// focus, the same text as its aria-label; the chart's own aria-label sums the window up.

import { h, ms } from './dom.js'

/** @typedef {import('./api.js').StatsView} StatsView */
/** @typedef {import('./api.js').RequestBucketView} RequestBucketView */
/** @typedef {import('./api.js').DeliveryBucketView} DeliveryBucketView */

/**
 * One bucket as a chart draws it: its bars' heights (in the chart's unit) and its lines' values (ms).
 * @typedef {object} ChartBucket
 * @property {string} at its start (ISO)
 * @property {number[]} stacks one per `ChartSpec.stacks`, bottom first
 * @property {number} count how many it holds (requests, attempts): a bucket is empty, or a tab stop, by it
 * @property {(number | null)[]} lines one per `ChartSpec.lines`; null: nothing to draw
 * @property {string} text what the tooltip and the aria-label say of it
 */

/**
 * @typedef {object} ChartSpec
 * @property {string} testid
 * @property {string} caption shown above the chart
 * @property {string} summary the chart's aria-label
 * @property {string} empty said over a chart with nothing in it
 * @property {{ key: string, label: string }[]} stacks the bars' parts, bottom first (`key` names the CSS class `c-{key}`)
 * @property {{ key: string, label: string }[]} lines the percentile lines
 * @property {(value: number) => string} unit a bar axis's tick (`2/s`, `4`)
 * @property {number} bucketSeconds
 * @property {ChartBucket[]} buckets oldest first
 */

const SVG = 'http://www.w3.org/2000/svg'
/**
 * The drawing is in CSS pixels, as wide as its box (measured, and drawn again when the box changes
 * width) and of a fixed height, so its text keeps the size app.css gives it at any window width.
 */
const HEIGHT = 170
/** Drawn at this width while its box has none (a tab not shown): drawn again once it has one. */
const UNMEASURED_WIDTH = 720
const LEFT = 48
const RIGHT = 56
const TOP = 14
const BOTTOM = 22
const PLOT_HEIGHT = HEIGHT - TOP - BOTTOM
/** The fewest pixels between two time labels of the x axis. */
const TICK_SPACING = 72
/** At most this many time labels between the ends: a few, as round as they can be. */
const MAX_TICKS = 6
/** Spans between the x axis's intermediate time labels, in seconds: the first that fits is taken. */
const TICK_STEPS = [5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200]

/**
 * An SVG element; attributes as given (numbers written as text).
 * @param {string} tag
 * @param {Record<string, string | number>} [attributes]
 * @param {...(SVGElement | string)} children
 * @returns {SVGElement}
 */
function svg(tag, attributes = {}, ...children) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, tag))
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value))
  element.append(...children)
  return element
}

/**
 * The smallest of 1, 2, 4, 6, 8 × a power of ten at least `value`: the top of an axis, whose
 * half (the middle tick) is as round.
 * @param {number} value
 */
function axisTop(value) {
  if (!(value > 0)) return 1
  const power = 10 ** Math.floor(Math.log10(value))
  return [1, 2, 4, 6, 8, 10].map((step) => step * power).find((top) => top >= value * (1 - 1e-9)) ?? 10 * power
}

/** @param {number} n */
const pad = (n) => String(n).padStart(2, '0')

/**
 * A bucket's start as the local time of day, to the second when buckets are shorter than a minute.
 * @param {number} time ms since the epoch
 * @param {number} bucketSeconds
 */
function timeOfDay(time, bucketSeconds) {
  const d = new Date(time)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}${bucketSeconds < 60 ? `:${pad(d.getSeconds())}` : ''}`
}

/**
 * `12:03:10–12:03:15`: the span a bucket covers.
 * @param {string} at
 * @param {number} bucketSeconds
 */
export function bucketSpan(at, bucketSeconds) {
  const start = Date.parse(at)
  return `${timeOfDay(start, bucketSeconds)}–${timeOfDay(start + bucketSeconds * 1000, bucketSeconds)}`
}

/**
 * `5 minutes`, `1 hour`, `90 seconds`: a window as the API names it (`5m`), in words.
 * @param {string} window
 */
function windowWords(window) {
  const match = /^(\d+)([smhd])$/.exec(window)
  if (!match) return window
  const count = Number(match[1])
  const unit = /** @type {Record<string, string>} */ ({ s: 'second', m: 'minute', h: 'hour', d: 'day' })[match[2] ?? 'm']
  return count === 1 ? `${unit}` : `${count} ${unit}s`
}

/** @param {number} seconds */
const bucketWords = (seconds) => (seconds % 60 === 0 ? `${seconds / 60}-minute` : `${seconds}-second`)

/** @param {number} seconds */
const bucketLength = (seconds) => (seconds === 60 ? 'minute' : seconds % 60 === 0 ? `${seconds / 60} minutes` : `${seconds} seconds`)

/**
 * The percentiles' part of a text: `p50 0.6 ms, p95 126 ms`.
 * @param {{ label: string, value: number | null }[]} values
 */
const percentileText = (values) => values.map(({ label, value }) => `${label} ${value === null ? '—' : ms(value)}`).join(', ')

/**
 * Where the tooltip sits: over the bucket, its bottom above the plot's top (over the caption and
 * legend, not the bars or the axes' labels), kept within the chart's width.
 * @param {HTMLElement} tip
 * @param {HTMLElement} frame
 * @param {Element} target
 */
function placeTip(tip, frame, target) {
  const box = target.getBoundingClientRect()
  const outer = frame.getBoundingClientRect()
  const width = tip.offsetWidth
  const left = Math.min(Math.max(box.left + box.width / 2 - outer.left - width / 2, 0), Math.max(outer.width - width, 0))
  // Set through the CSSOM: the CSP refuses style attributes, not this.
  tip.style.left = `${left}px`
  tip.style.top = `${TOP - 12 - tip.offsetHeight}px`
}

/**
 * The x axis's labels between its ends: at whole multiples of a round span (every minute, every
 * 5 minutes), a few, at least TICK_SPACING apart, none crowding the ends' labels.
 * @param {number} from ms
 * @param {number} to ms
 * @param {number} bucketSeconds
 * @param {number} plotWidth
 * @returns {{ time: number, step: number }[]}
 */
function timeTicks(from, to, bucketSeconds, plotWidth) {
  const fit = Math.min(Math.floor(plotWidth / TICK_SPACING), MAX_TICKS)
  const span = (to - from) / 1000
  const step = TICK_STEPS.find((seconds) => seconds % bucketSeconds === 0 && span / seconds <= fit)
  if (step === undefined) return []
  const ticks = []
  for (let time = Math.ceil(from / (step * 1000)) * step * 1000; time <= to; time += step * 1000) {
    const x = ((time - from) / (to - from)) * plotWidth
    if (x >= TICK_SPACING * 0.6 && x <= plotWidth - TICK_SPACING * 0.6) ticks.push({ time, step })
  }
  return ticks
}

/**
 * The SVG of a chart `width` pixels wide.
 * @param {ChartSpec} spec
 * @param {number} width
 * @returns {SVGElement}
 */
function drawing(spec, width) {
  const { buckets } = spec
  const plotWidth = Math.max(width - LEFT - RIGHT, 40)
  const count = Math.max(buckets.length, 1)
  const slot = plotWidth / count
  const barWidth = Math.max(slot - (slot > 4 ? 1 : 0), 0.5)
  const barTop = axisTop(Math.max(0, ...buckets.map((bucket) => bucket.stacks.reduce((sum, value) => sum + value, 0))))
  const lineValues = buckets.flatMap((bucket) => bucket.lines.filter(/** @returns {value is number} */ (value) => value !== null))
  const lineTop = axisTop(Math.max(0, ...lineValues))
  /** @param {number} value */
  const barY = (value) => TOP + PLOT_HEIGHT - (value / barTop) * PLOT_HEIGHT
  /** @param {number} value */
  const lineY = (value) => TOP + PLOT_HEIGHT - (value / lineTop) * PLOT_HEIGHT

  const grid = [0, 0.5, 1].flatMap((share) => {
    const y = barY(barTop * share)
    return [
      svg('line', { class: 'chart-grid', x1: LEFT, x2: LEFT + plotWidth, y1: y, y2: y }),
      svg('text', { class: 'chart-axis', x: LEFT - 5, y: y + 4, 'text-anchor': 'end' }, spec.unit(barTop * share)),
      ...(lineValues.length ? [svg('text', { class: 'chart-axis', x: LEFT + plotWidth + 5, y: y + 4 }, share === 0 ? '0 ms' : ms(lineTop * share))] : []),
    ]
  })
  const first = buckets[0]
  const last = buckets[buckets.length - 1]
  const baseline = HEIGHT - 6
  /** @type {SVGElement[]} */
  const times = []
  if (first && last) {
    const from = Date.parse(first.at)
    const to = Date.parse(last.at) + spec.bucketSeconds * 1000
    times.push(
      svg('text', { class: 'chart-axis', x: LEFT, y: baseline }, timeOfDay(from, spec.bucketSeconds)),
      svg('text', { class: 'chart-axis', x: LEFT + plotWidth, y: baseline, 'text-anchor': 'end' }, timeOfDay(to, spec.bucketSeconds)))
    for (const { time, step } of timeTicks(from, to, spec.bucketSeconds, plotWidth)) {
      const x = LEFT + ((time - from) / (to - from)) * plotWidth
      times.push(
        svg('line', { class: 'chart-tick', x1: x, x2: x, y1: TOP + PLOT_HEIGHT, y2: TOP + PLOT_HEIGHT + 4 }),
        svg('text', { class: 'chart-axis', x, y: baseline, 'text-anchor': 'middle', 'data-testid': 'chart-time' }, timeOfDay(time, step)))
    }
  }

  const lastWithData = buckets.reduce((found, bucket, index) => (bucket.count > 0 ? index : found), buckets.length - 1)
  const groups = buckets.map((bucket, index) => {
    const x = LEFT + index * slot
    let base = 0
    const bars = bucket.stacks.map((value, part) => {
      const bottom = barY(base)
      base += value
      return value > 0 ? svg('rect', { class: `c-${spec.stacks[part]?.key}`, x: x + (slot - barWidth) / 2, y: barY(base), width: barWidth, height: bottom - barY(base) }) : null
    }).filter(/** @returns {rect is SVGElement} */ (rect) => rect !== null)
    const points = bucket.lines.map((value, line) => (value === null ? null : svg('circle', { class: `c-${spec.lines[line]?.key}`, cx: x + slot / 2, cy: lineY(value), r: Math.min(2.5, Math.max(slot / 3, 1)) })))
      .filter(/** @returns {point is SVGElement} */ (point) => point !== null)
    return svg('g', { class: 'chart-bucket', tabindex: index === lastWithData ? 0 : -1, role: 'img', 'aria-label': bucket.text, 'data-at': bucket.at, 'data-testid': 'chart-bucket' },
      svg('rect', { class: 'chart-hit', x, y: TOP, width: slot, height: PLOT_HEIGHT }), ...bars, ...points)
  })
  // Each line drawn through its buckets' points, broken where a bucket has none.
  const lines = spec.lines.map((line, index) => {
    let path = ''
    let drawing = false
    buckets.forEach((bucket, at) => {
      const value = bucket.lines[index]
      if (value === null || value === undefined) return void (drawing = false)
      path += `${drawing ? 'L' : 'M'}${(LEFT + at * slot + slot / 2).toFixed(1)} ${lineY(value).toFixed(1)}`
      drawing = true
    })
    return svg('path', { class: `chart-line c-${line.key}`, d: path || 'M0 0' })
  })
  const empty = buckets.every((bucket) => bucket.count === 0)
    ? [svg('text', { class: 'chart-empty', x: LEFT + plotWidth / 2, y: TOP + PLOT_HEIGHT / 2, 'text-anchor': 'middle' }, spec.empty)]
    : []
  // The drawing itself is no tab stop (Chromium would make it one): its buckets are.
  return svg('svg', { viewBox: `0 0 ${width} ${HEIGHT}`, width, height: HEIGHT, role: 'group', 'aria-label': spec.summary, tabindex: -1, 'data-testid': `${spec.testid}-svg` },
    ...grid, ...times, ...groups, ...lines, ...empty)
}

/**
 * Each chart's redrawing at a width, and what watches its box's width, so that `replaceChart` draws
 * it at its box's width at once and lets go of the one it replaces.
 * @type {WeakMap<Element, { draw: () => void, observer: ResizeObserver }>}
 */
const charts = new WeakMap()

/**
 * The bucket focused in `within`, by its start; null when none is.
 * @param {Element} within
 */
function focusedAt(within) {
  const active = document.activeElement
  return active instanceof Element && within.contains(active) ? active.closest('.chart-bucket')?.getAttribute('data-at') ?? null : null
}

/**
 * The bucket starting at `at` focused again, and made the chart's tab stop.
 * @param {Element} chart
 * @param {string | null} at
 */
function refocus(chart, at) {
  if (!at) return
  const again = chart.querySelector(`.chart-bucket[data-at="${CSS.escape(at)}"]`)
  if (!(again instanceof SVGElement)) return
  for (const bucket of chart.querySelectorAll('.chart-bucket')) bucket.setAttribute('tabindex', bucket === again ? '0' : '-1')
  again.focus()
}

/**
 * A chart of stacked bars and lines: a figure with its caption, legend, the SVG and the tooltip.
 * @param {ChartSpec} spec
 * @returns {HTMLElement}
 */
export function stackedChart(spec) {
  const tip = h('div', { class: 'chart-tip', role: 'tooltip', 'data-testid': 'chart-tip', hidden: true })
  const frame = h('div', { class: 'chart-frame' }, tip)
  let drawnWidth = 0
  /** @param {number} width */
  const drawAt = (width) => {
    const measured = Math.round(width) || UNMEASURED_WIDTH
    if (measured === drawnWidth) return
    drawnWidth = measured
    const focused = focusedAt(frame)
    const old = frame.querySelector('svg')
    const fresh = drawing(spec, measured)
    if (old) old.replaceWith(fresh)
    else frame.prepend(fresh)
    refocus(frame, focused)
    if (!focused) hide()
  }
  /** @param {Element} target */
  const show = (target) => {
    tip.textContent = target.getAttribute('aria-label') ?? ''
    tip.hidden = false
    placeTip(tip, frame, target)
  }
  const hide = () => void (tip.hidden = true)
  const bucketOf = (/** @type {EventTarget | null} */ target) => (target instanceof Element ? target.closest('.chart-bucket') : null)
  // On the frame, not the SVG: the SVG is drawn anew as the width changes.
  frame.addEventListener('pointerover', (event) => {
    const bucket = bucketOf(event.target)
    if (bucket) show(bucket)
  })
  frame.addEventListener('pointerleave', () => {
    const focused = bucketOf(document.activeElement)
    if (focused && frame.contains(focused)) show(focused)
    else hide()
  })
  frame.addEventListener('focusin', (event) => {
    const bucket = bucketOf(event.target)
    if (bucket) show(bucket)
  })
  frame.addEventListener('focusout', hide)
  frame.addEventListener('keydown', (event) => moveFocus(frame, event))

  const legend = h('ul', { class: 'chart-legend' },
    spec.stacks.map((stack) => h('li', {}, h('span', { class: `swatch c-${stack.key}` }), stack.label)),
    spec.lines.map((line) => h('li', {}, h('span', { class: `swatch line c-${line.key}` }), line.label)))
  const figure = h('figure', { class: 'chart', 'data-testid': spec.testid }, h('figcaption', {}, spec.caption), legend, frame)
  const observer = new ResizeObserver(([entry]) => drawAt(entry?.contentRect.width ?? 0))
  observer.observe(frame)
  charts.set(figure, { draw: () => drawAt(frame.clientWidth), observer })
  return figure
}

/**
 * The arrow keys, Home and End move between a chart's buckets; the one focused is the chart's tab stop.
 * @param {HTMLElement} frame
 * @param {KeyboardEvent} event
 */
function moveFocus(frame, event) {
  const buckets = [...frame.querySelectorAll('.chart-bucket')]
  const current = buckets.findIndex((bucket) => bucket === document.activeElement)
  if (current < 0) return
  /** @type {Record<string, number>} */
  const moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: buckets.length - 1 }
  const next = moves[event.key]
  if (next === undefined) return
  event.preventDefault()
  const target = buckets[Math.min(Math.max(next, 0), buckets.length - 1)]
  if (!(target instanceof SVGElement)) return
  for (const bucket of buckets) bucket.setAttribute('tabindex', bucket === target ? '0' : '-1')
  target.focus()
}

/**
 * Puts a chart in its box in place of the one there, drawn at the box's width, the bucket that had
 * the keyboard's focus (by its start) focused again: a chart is redrawn as traffic comes.
 * @param {HTMLElement} box
 * @param {HTMLElement} chart
 */
export function replaceChart(box, chart) {
  const focused = focusedAt(box)
  for (const old of box.children) charts.get(old)?.observer.disconnect()
  box.replaceChildren(chart)
  charts.get(chart)?.draw()
  refocus(chart, focused)
}

/** @param {number} value */
const perSecond = (value) => `${Number(value.toFixed(2))}/s`

const STATUS_CLASSES = /** @type {const} */ (['2xx', '3xx', '4xx', '5xx'])
/** The parts of a bar of requests, bottom first: the status classes, then those that got no answer (status 0). */
const REQUEST_STACKS = /** @type {const} */ ([...STATUS_CLASSES, 'noAnswer'])

/**
 * The text of one bucket of requests: `12:03:10–12:03:15: 16 requests (3.2/s): 2xx 11, 3xx 1, 4xx 2, 5xx 1; p50 0.6 ms, p95 126 ms, p99 126 ms`.
 * @param {RequestBucketView} bucket
 * @param {number} bucketSeconds
 */
export function requestBucketText(bucket, bucketSeconds) {
  const span = bucketSpan(bucket.at, bucketSeconds)
  if (bucket.total === 0) return `${span}: no requests`
  const classes = STATUS_CLASSES.map((name) => `${name} ${bucket[name]}`).join(', ')
  const faults = bucket.noAnswer
  const percentiles = percentileText([{ label: 'p50', value: bucket.p50 }, { label: 'p95', value: bucket.p95 }, { label: 'p99', value: bucket.p99 }])
  return `${span}: ${bucket.total} request${bucket.total === 1 ? '' : 's'} (${perSecond(bucket.total / bucketSeconds)}): ${classes}${faults ? `, no answer ${faults}` : ''}; ${percentiles}`
}

/**
 * Requests per second by status class, with the p50 and p95 durations.
 * @param {StatsView} stats
 */
export function requestChart(stats) {
  const { requests, bucketSeconds } = stats
  const total = requests.reduce((sum, bucket) => sum + bucket.total, 0)
  const noAnswer = requests.reduce((sum, bucket) => sum + bucket.noAnswer, 0)
  const byClass = STATUS_CLASSES.map((name) => `${name} ${requests.reduce((sum, bucket) => sum + bucket[name], 0)}`).join(', ') + (noAnswer ? `, no answer ${noAnswer}` : '')
  const busiest = requests.reduce((top, bucket) => (bucket.total > top.total ? bucket : top), requests[0] ?? { at: stats.from, total: 0 })
  const slowest = Math.max(0, ...requests.map((bucket) => bucket.p95 ?? 0))
  const words = windowWords(stats.window)
  const summary = total === 0
    ? `Requests per second over the last ${words}: none`
    : `Requests per second over the last ${words}, by status class, in ${bucketWords(bucketSeconds)} buckets: ${total} request${total === 1 ? '' : 's'}, ${byClass}; busiest ${bucketSpan(busiest.at, bucketSeconds)} at ${perSecond(busiest.total / bucketSeconds)}; p95 duration at most ${ms(slowest)}`
  return stackedChart({
    testid: 'request-chart',
    caption: `Requests per second, last ${words}`,
    summary,
    empty: `No requests in the last ${words}`,
    stacks: [...STATUS_CLASSES.map((name) => ({ key: name, label: name })), { key: 'none', label: 'no answer' }],
    lines: [{ key: 'p50', label: 'p50 duration' }, { key: 'p95', label: 'p95 duration' }],
    unit: perSecond,
    bucketSeconds,
    buckets: requests.map((bucket) => ({
      at: bucket.at,
      stacks: REQUEST_STACKS.map((name) => bucket[name] / bucketSeconds),
      count: bucket.total,
      lines: [bucket.p50, bucket.p95],
      text: requestBucketText(bucket, bucketSeconds),
    })),
  })
}

const OUTCOMES = /** @type {const} */ (['succeeded', 'retrying', 'failed'])

/**
 * The text of one bucket of a subscription's attempts: `12:03:00–12:03:30: 3 attempts: succeeded 2, retrying 1, failed 0; p50 4 ms, p95 12 ms`.
 * @param {DeliveryBucketView} bucket
 * @param {number} bucketSeconds
 */
export function deliveryBucketText(bucket, bucketSeconds) {
  const span = bucketSpan(bucket.at, bucketSeconds)
  const attempts = OUTCOMES.reduce((sum, name) => sum + bucket[name], 0)
  if (attempts === 0) return `${span}: no attempts`
  const outcomes = OUTCOMES.map((name) => `${name} ${bucket[name]}`).join(', ')
  return `${span}: ${attempts} attempt${attempts === 1 ? '' : 's'}: ${outcomes}; ${percentileText([{ label: 'p50', value: bucket.p50 }, { label: 'p95', value: bucket.p95 }])}`
}

/**
 * One subscription's delivery attempts per bucket by outcome, with the p50 and p95 attempt latency.
 * @param {StatsView} stats
 * @param {number} subscriptionId
 * @param {string} name the subscription's
 */
export function deliveryChart(stats, subscriptionId, name) {
  const { bucketSeconds } = stats
  const listed = stats.deliveries.filter((bucket) => bucket.subscriptionId === subscriptionId)
  // A subscription added since the stats were fetched has none yet: the window's buckets, empty.
  const buckets = listed.length ? listed : stats.requests.map(({ at }) => ({ at, subscriptionId, succeeded: 0, retrying: 0, failed: 0, p50: null, p95: null }))
  const sums = OUTCOMES.map((outcome) => buckets.reduce((sum, bucket) => sum + bucket[outcome], 0))
  const attempts = sums.reduce((sum, value) => sum + value, 0)
  const slowest = Math.max(0, ...buckets.map((bucket) => bucket.p95 ?? 0))
  const words = windowWords(stats.window)
  const summary = attempts === 0
    ? `Delivery attempts of ${name} over the last ${words}: none`
    : `Delivery attempts of ${name} over the last ${words}, by outcome, in ${bucketWords(bucketSeconds)} buckets: ${attempts} attempt${attempts === 1 ? '' : 's'}, ${OUTCOMES.map((outcome, index) => `${outcome} ${sums[index]}`).join(', ')}; p95 latency at most ${ms(slowest)}`
  return stackedChart({
    testid: 'delivery-chart',
    caption: `Delivery attempts per ${bucketLength(bucketSeconds)}, last ${words}`,
    summary,
    empty: `No attempts in the last ${words}`,
    stacks: OUTCOMES.map((outcome) => ({ key: outcome, label: outcome })),
    lines: [{ key: 'p50', label: 'p50 latency' }, { key: 'p95', label: 'p95 latency' }],
    unit: (value) => String(Number(value.toFixed(1))),
    bucketSeconds,
    buckets: buckets.map((bucket) => ({
      at: bucket.at,
      stacks: OUTCOMES.map((outcome) => bucket[outcome]),
      count: OUTCOMES.reduce((sum, outcome) => sum + bucket[outcome], 0),
      lines: [bucket.p50, bucket.p95],
      text: deliveryBucketText(bucket, bucketSeconds),
    })),
  })
}
