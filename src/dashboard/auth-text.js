// @ts-check
// Auth settings as the dashboard's text fields hold them (docs/mocking.md, "Auth").

/**
 * An auth setting as typed: empty (or `inherit`) is null, `none` stays, anything else is JSON.
 * @param {string} text
 * @returns {unknown}
 */
export function parseAuthText(text) {
  const trimmed = text.trim()
  if (trimmed === '' || trimmed === 'inherit') return null
  if (trimmed === 'none') return 'none'
  return JSON.parse(trimmed)
}

/** @param {unknown} auth */
export const authText = (auth) => (auth === null || auth === undefined ? '' : auth === 'none' ? 'none' : JSON.stringify(auth))
