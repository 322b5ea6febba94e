// @ts-check
// An endpoint's responses in the Endpoints tab: one card per response, the pick beside them, saved
// whole with one PATCH (the list is replaced at once, so a reorder never leaves half a list stored).
// A refusal names the response (`responses[1].when.query.a.matches`): it shows on that card.

import { ApiError, updateEndpoint } from './api.js'
import { guard, h, notify } from './dom.js'

/** @typedef {import('./api.js').ServedEndpointView} ServedEndpointView */
/** @typedef {import('../views.ts').ResponseView} ResponseView */
/** @typedef {'' | 'json' | 'text' | 'file'} BodyKind */

/**
 * One card: its element, what it holds as a response (throws a CardProblem when a field cannot be
 * read), and where a problem with it is said.
 * @typedef {object} Card
 * @property {HTMLLIElement} element
 * @property {() => ResponseView} collect
 * @property {(message: string, field?: string) => void} showProblem
 * @property {() => void} clearProblem
 * @property {(position: number, count: number) => void} place
 */

const PICKS = ['rules', 'sequence', 'random']
const FAULTS = ['', 'reset', 'empty', 'malformed', 'hang']

/** A field of a card that cannot be read as typed: said on the card, nothing sent. */
class CardProblem extends Error {
  /**
   * @param {string} field the response setting (`when`, `headers`, `body`…)
   * @param {string} message
   */
  constructor(field, message) {
    super(message)
    this.field = field
  }
}

/** @param {ServedEndpointView} endpoint */
export const responsesSummary = (endpoint) => `${endpoint.responses.length} ${endpoint.responses.length === 1 ? 'response' : 'responses'} · ${endpoint.pick}`

/**
 * @param {ServedEndpointView} endpoint
 * @param {string} name `GET /api/x`, for labels
 * @param {() => void} saved called after a save changed the endpoint
 */
export function responsesEditor(endpoint, name, saved) {
  /** @type {Card[]} */
  let cards = []
  const list = h('ol', { class: 'response-cards', 'data-testid': 'response-cards' })
  const empty = h('p', { class: 'muted small', 'data-testid': 'responses-empty' }, 'No responses: the endpoint answers as configured above.')
  const pick = h('select', { 'aria-label': `Pick of ${name}`, 'data-testid': 'responses-pick', title: 'rules: the first whose when holds, else the one without when; sequence: in turn; random' },
    ...PICKS.map((mode) => h('option', { value: mode }, mode)))
  pick.value = endpoint.pick
  const problem = h('p', { class: 'error', role: 'alert', 'data-testid': 'responses-problem' })

  /** @param {ResponseView[]} responses */
  function show(responses) {
    cards = responses.map((response) => responseCard(response, name, move, remove))
    list.replaceChildren(...cards.map((card) => card.element))
    placeAll()
  }
  function placeAll() {
    cards.forEach((card, i) => card.place(i + 1, cards.length))
    empty.hidden = cards.length > 0
  }
  /**
   * @param {Card} card
   * @param {-1 | 1} by
   */
  function move(card, by) {
    const from = cards.indexOf(card)
    const to = from + by
    const other = cards[to]
    if (!other) return
    cards[to] = card
    cards[from] = other
    if (by < 0) other.element.before(card.element)
    else other.element.after(card.element)
    placeAll()
  }
  /** @param {Card} card */
  function remove(card) {
    const at = cards.indexOf(card)
    cards.splice(at, 1)
    card.element.remove()
    placeAll()
    // The focus had been on the removed card's button: keep it in the list.
    const next = cards[Math.min(at, cards.length - 1)]
    if (next) next.element.querySelector('input')?.focus()
    else add.focus()
  }

  const add = h('button', { type: 'button', 'data-testid': 'responses-add', 'aria-label': `Add a response to ${name}` }, 'Add response')
  add.addEventListener('click', () => {
    const card = responseCard({}, name, move, remove)
    cards.push(card)
    list.append(card.element)
    placeAll()
    card.element.querySelector('input')?.focus()
  })

  /** Reads every card; a field that cannot be read is said on its card and nothing is sent. */
  function collectAll() {
    problem.textContent = ''
    /** @type {ResponseView[]} */
    const responses = []
    let unreadable = false
    for (const card of cards) {
      card.clearProblem()
      try {
        responses.push(card.collect())
      } catch (error) {
        if (!(error instanceof CardProblem)) throw error
        card.showProblem(error.message, error.field)
        unreadable = true
      }
    }
    return unreadable ? undefined : responses
  }

  const save = h('button', { type: 'button', class: 'primary', 'data-testid': 'responses-save', 'aria-label': `Save the responses of ${name}` }, 'Save responses')
  save.addEventListener('click', () => guard(async () => {
    const responses = collectAll()
    if (!responses) return notify(`Not saved: a response of ${name} has a field that cannot be read (said on its card)`, 'error')
    await store(responses, (error) => {
      const at = /^responses\[(\d+)\](?:\.(\w+))?/.exec(error.details[0]?.field ?? '')
      const card = at ? cards[Number(at[1])] : undefined
      if (card) card.showProblem(error.message, at?.[2])
      else problem.textContent = error.message
    })
  }))

  /**
   * Sends the pick and the list; the cards are then drawn from what the API kept (a new file by its id).
   * @param {unknown} responses
   * @param {(error: ApiError) => void} refused where a 400 is said (besides the notice)
   */
  async function store(responses, refused) {
    let updated
    try {
      updated = await updateEndpoint(endpoint.id, { pick: pick.value, responses: /** @type {unknown[]} */ (responses) })
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 400)) throw error
      refused(error)
      return notify(error.message, 'error')
    }
    Object.assign(endpoint, updated)
    show(updated.responses)
    if (hatch.open) jsonArea.value = JSON.stringify(updated.responses, null, 2)
    saved()
    notify(`Saved: ${updated.responses.length} responses of ${name}, picked by ${updated.pick}`)
  }

  // The escape hatch: the list as JSON (as a project file or the API writes it), to paste or copy,
  // saved as it is: the API checks it, as it checks the cards.
  const jsonArea = h('textarea', { rows: 8, spellcheck: false, 'aria-label': `Responses of ${name} as JSON`, 'data-testid': 'responses-json' })
  const jsonProblem = h('p', { class: 'error', role: 'alert', 'data-testid': 'responses-json-problem' })
  const saveJson = h('button', { type: 'button', class: 'small', 'data-testid': 'responses-json-save', 'aria-label': `Save the responses of ${name} as this JSON` }, 'Save this JSON')
  saveJson.addEventListener('click', () => guard(async () => {
    jsonProblem.textContent = ''
    jsonArea.removeAttribute('aria-invalid')
    let parsed
    try {
      parsed = JSON.parse(jsonArea.value)
    } catch (error) {
      jsonArea.setAttribute('aria-invalid', 'true')
      jsonProblem.textContent = `not JSON: ${error instanceof Error ? error.message : String(error)}`
      return
    }
    await store(parsed, (error) => {
      jsonArea.setAttribute('aria-invalid', 'true')
      jsonProblem.textContent = error.message
    })
  }))
  const hatch = h('details', { class: 'responses-json', 'data-testid': 'responses-json-open' },
    h('summary', {}, 'Edit as JSON'), jsonArea, jsonProblem, saveJson)
  hatch.addEventListener('toggle', () => {
    if (!hatch.open) return
    const responses = collectAll()
    jsonArea.value = responses ? JSON.stringify(responses, null, 2) : ''
  })

  show(endpoint.responses)
  return h('section', { class: 'responses', 'data-testid': 'endpoint-responses', 'aria-label': `Responses of ${name}` },
    h('div', { class: 'responses-head' },
      h('h3', {}, 'Responses'),
      h('label', { class: 'inline' }, 'Pick', pick)),
    empty, list, problem,
    h('div', { class: 'buttons' }, add, save),
    hatch)
}

/**
 * @param {ResponseView} response
 * @param {string} name
 * @param {(card: Card, by: -1 | 1) => void} move
 * @param {(card: Card) => void} remove
 * @returns {Card}
 */
function responseCard(response, name, move, remove) {
  const legend = h('legend', {})
  const field = (/** @type {string} */ testid, /** @type {Record<string, unknown>} */ props) => h('input', { type: 'text', spellcheck: false, 'data-testid': testid, ...props })
  const nameBox = field('response-name', { value: response.name ?? '', placeholder: 'optional' })
  const when = h('textarea', {
    rows: 3, spellcheck: false, 'data-testid': 'response-when', placeholder: 'empty: the fallback ({"query": {"page": "2"}})',
    value: response.when === undefined ? '' : JSON.stringify(response.when, null, 2),
  })
  const status = h('input', { type: 'number', class: 'num', min: '100', max: '599', step: '1', 'data-testid': 'response-status', value: response.status === undefined ? '' : String(response.status), placeholder: 'endpoint\'s' })
  const headers = h('textarea', {
    rows: 2, spellcheck: false, 'data-testid': 'response-headers', placeholder: 'X-Trace: {{uuid}}',
    value: Object.entries(response.headers ?? {}).map(([key, value]) => `${key}: ${value}`).join('\n'),
  })

  /** @type {BodyKind} */
  const kind = response.body !== undefined ? 'json' : response.text !== undefined ? 'text' : response.file !== undefined ? 'file' : ''
  const bodyKind = h('select', { 'data-testid': 'response-body-kind' },
    h('option', { value: '' }, 'no body'), h('option', { value: 'json' }, 'JSON'), h('option', { value: 'text' }, 'text'), h('option', { value: 'file' }, 'file'))
  bodyKind.value = kind
  const bodyText = h('textarea', {
    rows: 3, spellcheck: false, 'data-testid': 'response-body',
    value: response.body !== undefined ? JSON.stringify(response.body, null, 2) : response.text ?? '',
  })
  /** @type {ResponseView['file']} */
  let file = response.file
  const fileName = h('span', { class: 'small', 'data-testid': 'response-file-name' })
  const showFile = () => {
    fileName.textContent = !file ? 'no file chosen' : 'id' in file ? `${file.name} (${file.size} bytes, kept)` : `${file.name} (to upload on save)`
  }
  showFile()
  const upload = h('input', { type: 'file', 'data-testid': 'response-file' })
  upload.addEventListener('change', () => guard(async () => {
    const chosen = upload.files?.[0]
    if (!chosen) return
    file = { name: chosen.name, base64: await base64Of(chosen) }
    upload.value = ''
    showFile()
  }))
  const textBody = h('label', { class: 'wide' }, 'Body', bodyText)
  const fileBody = h('div', { class: 'wide file-body' }, h('label', { class: 'inline' }, 'File', upload), fileName)
  const showBodyKind = () => {
    textBody.hidden = bodyKind.value !== 'json' && bodyKind.value !== 'text'
    fileBody.hidden = bodyKind.value !== 'file'
  }
  bodyKind.addEventListener('change', showBodyKind)
  showBodyKind()

  const contentType = field('response-content-type', { value: response.contentType ?? '', placeholder: 'from the body' })
  const delay = field('response-delay', { class: 'num', value: response.delay === undefined ? '' : String(response.delay), placeholder: '0', inputMode: 'numeric', title: 'milliseconds (250) or a range drawn per request (100-300)' })
  const fault = h('select', { 'data-testid': 'response-fault' }, ...FAULTS.map((f) => h('option', { value: f }, f || 'none')))
  fault.value = response.fault ?? ''
  const problem = h('p', { class: 'error', role: 'alert', 'data-testid': 'response-problem' })

  const up = h('button', { type: 'button', class: 'small', 'data-testid': 'response-up' }, '↑ Up')
  const down = h('button', { type: 'button', class: 'small', 'data-testid': 'response-down' }, '↓ Down')
  const drop = h('button', { type: 'button', class: 'small danger', 'data-testid': 'response-remove' }, 'Remove')

  /** The inputs by the response setting they hold, to mark the one a refusal names. */
  const inputs = { name: nameBox, when, status, headers, body: bodyText, text: bodyText, file: upload, contentType, delay, fault }
  const element = h('li', { class: 'response-card', 'data-testid': 'response-card' },
    h('fieldset', {}, legend,
      h('div', { class: 'response-tools' }, up, down, drop),
      h('div', { class: 'response-fields' },
        h('label', {}, 'Name', nameBox),
        h('label', {}, 'Status', status),
        h('label', {}, 'Delay (ms)', delay),
        h('label', {}, 'Fault', fault),
        h('label', { class: 'wide' }, 'When (JSON, pick rules only; empty: the fallback)', when),
        h('label', { class: 'wide' }, 'Headers (one Name: value a line)', headers),
        h('label', {}, 'Body', bodyKind),
        h('label', {}, 'Content-Type', contentType),
        textBody, fileBody),
      problem))

  /** @type {Card} */
  const card = {
    element,
    collect() {
      /** @type {ResponseView} */
      const view = {}
      if (nameBox.value.trim()) view.name = nameBox.value.trim()
      if (when.value.trim()) view.when = /** @type {Record<string, unknown>} */ (jsonOf(when.value, 'when'))
      if (status.value.trim()) view.status = Number(status.value)
      const headerLines = headersOf(headers.value)
      if (headerLines) view.headers = headerLines
      if (bodyKind.value === 'json') view.body = jsonOf(bodyText.value, 'body')
      if (bodyKind.value === 'text') view.text = bodyText.value
      if (bodyKind.value === 'file') {
        if (!file) throw new CardProblem('file', 'choose a file, or another kind of body')
        view.file = file
      }
      if (contentType.value.trim()) view.contentType = contentType.value.trim()
      const delayText = delay.value.trim()
      if (delayText) view.delay = /^\d+$/.test(delayText) ? Number(delayText) : delayText
      if (fault.value) view.fault = /** @type {ResponseView['fault']} */ (fault.value)
      return view
    },
    showProblem(message, setting) {
      problem.textContent = message
      const box = setting ? inputs[/** @type {keyof typeof inputs} */ (setting)] : undefined
      box?.setAttribute('aria-invalid', 'true')
    },
    clearProblem() {
      problem.textContent = ''
      for (const box of Object.values(inputs)) box.removeAttribute('aria-invalid')
    },
    place(position, count) {
      element.dataset.position = String(position)
      legend.textContent = `Response #${position}`
      const of = `response #${position} of ${name}`
      for (const [label, box] of /** @type {[string, HTMLElement][]} */ ([['Name', nameBox], ['When', when], ['Status', status], ['Headers', headers], ['Body type', bodyKind], ['Body', bodyText], ['File', upload], ['Content-Type', contentType], ['Delay', delay], ['Fault', fault]])) {
        box.setAttribute('aria-label', `${label} of ${of}`)
      }
      up.setAttribute('aria-label', `Move ${of} up`)
      down.setAttribute('aria-label', `Move ${of} down`)
      drop.setAttribute('aria-label', `Remove ${of}`)
      up.disabled = position === 1
      down.disabled = position === count
    },
  }
  up.addEventListener('click', () => {
    move(card, -1)
    // At the top the button is disabled: the focus goes to the other one, not to the page.
    ;(up.disabled ? down : up).focus()
  })
  down.addEventListener('click', () => {
    move(card, 1)
    ;(down.disabled ? up : down).focus()
  })
  drop.addEventListener('click', () => remove(card))
  return card
}

/**
 * @param {string} text
 * @param {'when' | 'body'} setting
 * @returns {unknown}
 */
function jsonOf(text, setting) {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new CardProblem(setting, `${setting} is not JSON (${error instanceof Error ? error.message : String(error)})${setting === 'body' ? ': choose text to answer it as text' : ''}`)
  }
}

/**
 * `Name: value` lines → an object; empty lines are skipped, the first colon splits.
 * @param {string} text
 * @returns {Record<string, string> | undefined}
 */
function headersOf(text) {
  /** @type {Record<string, string>} */
  const headers = {}
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const colon = line.indexOf(':')
    if (colon < 1) throw new CardProblem('headers', `header line "${line}" must look like Name: value`)
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim()
  }
  return Object.keys(headers).length ? headers : undefined
}

/**
 * @param {Blob} file
 * @returns {Promise<string>}
 */
async function base64Of(file) {
  const bytes = new Uint8Array(await file.arrayBuffer())
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}
