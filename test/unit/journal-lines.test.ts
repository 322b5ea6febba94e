import { describe, expect, it } from 'vitest'
import { headerLinesOf, headerPairs } from '../../src/domain/journal.ts'

describe('a record keeps its header lines as one string', () => {
  it('gives back every line as sent: order, case, repeats, empty values and colons kept', () => {
    const raw = ['Host', '127.0.0.1:3000', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2', 'X-Empty', '', 'X-Time', '12:30:00']
    expect([...headerPairs(headerLinesOf(raw))]).toEqual([['Host', '127.0.0.1:3000'], ['Set-Cookie', 'a=1'], ['set-cookie', 'b=2'], ['X-Empty', ''], ['X-Time', '12:30:00']])
  })

  it('has no pairs for a request without headers', () => {
    expect(headerLinesOf([])).toBe('')
    expect([...headerPairs('')]).toEqual([])
  })
})
