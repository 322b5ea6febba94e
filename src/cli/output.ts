import chalk from 'chalk'

/** Where a command writes; injectable so commands can be run in-process. */
export interface Io {
  out(text: string): void
  err(text: string): void
  isInteractive: boolean
  /** Standard error when it is a terminal, for the progress line (cli/progress.ts); absent elsewhere. */
  terminal?: Terminal | undefined
}

/** A terminal to draw a line on and over: text goes out as it is (no newline added). */
export interface Terminal {
  write(text: string): void
  /** Its width in characters; 0 when it does not say. */
  columns(): number
}

export const processIo: Io = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  isInteractive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  terminal: process.stderr.isTTY ? { write: (text) => void process.stderr.write(text), columns: () => process.stderr.columns ?? 0 } : undefined,
}

export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2))
}

/** Left-aligned columns: the header line (dim), then one line per row. */
export function tableLines(headers: string[], rows: (string | number)[][]): { header: string; lines: string[] } {
  const cells = rows.map((row) => row.map(String))
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)))
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')
  return { header: chalk.dim(line(headers)), lines: cells.map(line) }
}

/** Left-aligned columns with a dim header; empty tables say so. */
export function printTable(io: Io, headers: string[], rows: (string | number)[][], empty = '(none)'): void {
  if (rows.length === 0) {
    io.out(chalk.dim(empty))
    return
  }
  const { header, lines } = tableLines(headers, rows)
  io.out([header, ...lines].join('\n'))
}

export function printWarnings(io: Io, warnings: string[]): void {
  for (const warning of warnings) io.err(chalk.yellow(`! ${warning}`))
}

export const success = (text: string): string => `${chalk.green('✔')} ${text}`
