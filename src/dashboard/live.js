// @ts-check
// One server-sent event stream per tab: requests, inbox payloads and deliveries as they happen.

import { eventsUrl, getProject } from './api.js'
import { $, guard } from './dom.js'
import { loadInbox, onInbox } from './inbox.js'
import { loadSubscriptions, onDelivery } from './integrations.js'
import { loadRequests, onRequest } from './requests.js'
import { currentProject, state, stillCurrent } from './state.js'
import { loadTraffic, onDeliveryTraffic, onRequestTraffic, stopTraffic } from './traffic.js'

const RETRY_MS = 5000

/** @type {EventSource | null} */
let source = null
/** @type {ReturnType<typeof setTimeout> | undefined} */
let retryTimer

/**
 * @param {string} text
 * @param {'wait' | 'on' | 'off'} kind
 */
function setLive(text, kind) {
  $('live').textContent = text
  $('live').dataset.state = kind
}

export function closeEvents() {
  source?.close()
  source = null
  clearTimeout(retryTimer)
  stopTraffic()
}

export function connectEvents() {
  const current = stillCurrent()
  const opened = new EventSource(eventsUrl())
  source = opened
  setLive('connecting…', 'wait')
  opened.addEventListener('open', () => {
    setLive('live', 'on')
    // What happened before the stream opened, or while it was down.
    loadRequests()
    loadInbox()
    loadSubscriptions()
    loadTraffic()
  })
  opened.addEventListener('error', () => {
    if (!current()) return
    if (opened.readyState !== EventSource.CLOSED) return setLive('reconnecting…', 'wait')
    // Refused (a token gone bad, the route missing): check the token, then try again.
    setLive('offline', 'off')
    retryTimer = setTimeout(async () => {
      if (!current()) return
      await guard(() => getProject(currentProject().id), () => {})
      if (current() && state.token) connectEvents()
    }, RETRY_MS)
  })
  /**
   * @template T
   * @param {string} type
   * @param {(data: T) => void} handle
   */
  const listen = (type, handle) => opened.addEventListener(type, (event) => {
    if (current()) handle(JSON.parse(/** @type {MessageEvent<string>} */ (event).data))
  })
  /** @param {import('./api.js').JournalEntry} entry */
  const onRequestEvent = (entry) => {
    onRequest(entry)
    onRequestTraffic()
  }
  /** @param {import('./api.js').DeliveryEvent} event */
  const onDeliveryEvent = (event) => {
    onDelivery(event)
    onDeliveryTraffic()
  }
  listen('request', onRequestEvent)
  listen('inbox', onInbox)
  listen('delivery', onDeliveryEvent)
}
