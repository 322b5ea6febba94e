/**
 * CSV bodies (RFC 4180) for `text/csv` answers: an object is a header row and one row, an array of
 * objects a header row (every key met, in order) and a row each, an array of plain values one per
 * line. A nested value is written as its JSON text in its cell.
 */
export function writeCsv(value: object): string {
  const rows = Array.isArray(value) ? value : [value]
  if (!rows.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row))) return rows.map((row) => _cell(row)).join('\r\n')
  const records = rows as Record<string, unknown>[]
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))]
  return [columns.map(_cell), ...records.map((record) => columns.map((column) => _cell(record[column])))].map((cells) => cells.join(',')).join('\r\n')
}

function _cell(value: unknown): string {
  const text = value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
