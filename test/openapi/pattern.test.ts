import { expect, test } from 'vitest'
import { patternSample } from '../../src/kinds/openapi/pattern.ts'

test.each([
  ['^[C][A-Z0-9]{2,}$', 'CAA'], // openapi-sampler alone: "CA{2,}"
  ['^\\d{10}\\.\\d{6}$', '0000000000.000000'],
  ['^(A[A-Z0-9]{1,})?$', ''],
  ['^MG[0-9a-fA-F]{32}$', `MG${'0'.repeat(32)}`],
  ['^[^@]+@[^@]+\\.[a-z]{2,}$', 'a@a.aa'],
  ['^(?:foo|bar)-\\w+$', 'foo-a'],
  ['^\\+[1-9]\\d{1,14}$', '+10'],
  ['^https?://', 'http://'],
  ['[\\]a-]+', ']'],
  ['^(?!x)[a-z]{3}$', 'aaa'],
  ['^\\u00e9+$', 'é'],
])('%s → %s', (pattern, expected) => {
  expect(patternSample(pattern)).toBe(expected)
  expect(new RegExp(pattern, 'u').test(expected)).toBe(true)
})

test('open-ended parts grow to meet minLength, and maxLength is kept', () => {
  expect(patternSample('^[a-z]+$', 5, 6)).toBe('aaaaaa')
  expect(patternSample('^[a-z]{3}$', 5)).toBeUndefined()
})

test('what it cannot satisfy, or cannot parse, gives undefined rather than a wrong string', () => {
  expect(patternSample('^(a)\\1$')).toBeUndefined() // backreferences
  expect(patternSample('([')).toBeUndefined()
})
