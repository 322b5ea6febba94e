// @ts-check
// The Inbox tab: the project's inbox address and the payloads it received.

import { clearInbox as emptyInbox, listInbox } from './api.js'
import { $, button, confirming, copyText, dateTime, guard, h, headersTable, loadForProject, notify, shellQuote } from './dom.js'
import { INBOX_PAGE, currentProject, mergeNewest, state } from './state.js'

/** @typedef {import('./api.js').InboxItem} InboxItem */

export const inboxUrl = () => `${location.origin}/api/webhooks/inbox/${currentProject().shareToken}`

export async function loadInbox() {
  await loadForProject(() => listInbox(INBOX_PAGE), ({ items, total }) => {
    state.inbox = mergeNewest(state.inbox, items, (item) => item.receivedAt, INBOX_PAGE)
    state.inboxTotal = total
    renderInbox()
  })
}

/**
 * An `inbox` event: the payload on top.
 * @param {InboxItem} payload
 */
export function onInbox(payload) {
  if (state.inbox.some((p) => p.id === payload.id)) return
  state.inbox.unshift(payload)
  state.inboxTotal++
  $('inbox-list').prepend(inboxItem(payload))
  renderInboxCount()
}

export function renderInbox() {
  $('inbox-list').replaceChildren(...state.inbox.map(inboxItem))
  renderInboxCount()
}

function renderInboxCount() {
  const n = state.inboxTotal
  $('inbox-count').textContent = n ? `${n} payload${n === 1 ? '' : 's'} received, newest first` : 'Nothing received yet. New payloads appear here as they arrive.'
}

/** @param {InboxItem} item */
function inboxItem(item) {
  const body = JSON.stringify(item.body, null, 2) ?? ''
  const count = Object.keys(item.headers ?? {}).length
  return h('li', { class: 'card', 'data-testid': 'inbox-item', 'data-id': String(item.id) },
    h('div', { class: 'card-head' },
      h('time', { dateTime: item.receivedAt }, dateTime(item.receivedAt)),
      h('span', { class: 'muted small' }, `${item.sizeBytes} bytes${item.sourceIp ? ` from ${item.sourceIp}` : ''}`),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'small', 'data-testid': 'inbox-copy', onclick: () => copyText(body, 'the payload') }, 'Copy')),
    h('details', {}, h('summary', {}, `Headers (${count})`), headersTable(item.headers)),
    h('pre', { class: 'body', 'data-testid': 'inbox-body' }, body))
}

async function clearInbox() {
  await guard(async () => {
    await emptyInbox()
    state.inbox = []
    state.inboxTotal = 0
    renderInbox()
    notify('Inbox cleared')
  })
}

/** Listens to the tab's own controls. */
export function wireInbox() {
  button('inbox-copy-url').addEventListener('click', () =>
    copyText(`curl -X POST ${shellQuote(inboxUrl())} -H 'content-type: application/json' -d '{"event":"test"}'`, 'the curl line'))
  confirming(button('inbox-clear'), 'Clear all?', clearInbox)
}
