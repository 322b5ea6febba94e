import type { Faker } from '@faker-js/faker'
import { valueForField, type ScalarKind } from '../../engine/field-values.ts'

const BUILT_IN: Record<string, ScalarKind> = { String: 'string', Int: 'int', Float: 'float', Boolean: 'boolean', ID: 'id' }

type Rule = [RegExp, (faker: Faker, field: string) => unknown]

// Custom scalars carry no format in SDL, so their name is the only hint; checked in order, first match wins.
const CUSTOM_RULES: Rule[] = [
  [/^(date|localdate)$/i, (f, field) => valueForField(field, 'date', f)],
  [/(time|timestamp)$/i, (f, field) => valueForField(field, 'datetime', f)],
  [/^(uri|url)$/i, (f) => f.internet.url()],
  [/^html$/i, (f) => `<p>${f.lorem.sentence()}</p>`],
  // GitHub's BigInt says it "is encoded as a string" because it may exceed 32 bits.
  [/^(bigint|long|int64)$/i, (f) => String(f.number.int({ min: 1, max: 10_000_000_000 }))],
  [/^json(object)?$/i, (f) => ({ [f.lorem.word()]: f.lorem.words(2), count: f.number.int({ min: 0, max: 100 }) })],
  [/^base64(string)?$/i, (f) => Buffer.from(f.lorem.words(3)).toString('base64')],
  [/^gitobjectid$/i, (f) => f.git.commitSha()],
  [/^gitrefname$/i, (f) => `refs/heads/${f.git.branch()}`],
  [/^gitsshremote$/i, (f) => `git@github.com:${f.internet.username()}/${f.lorem.slug(2)}.git`],
  [/^x509certificate$/i, (f) => `-----BEGIN CERTIFICATE-----\n${f.string.alphanumeric(64)}\n-----END CERTIFICATE-----`],
  [/^e?mail(address)?$/i, (f) => f.internet.email()],
  [/^uuid$/i, (f) => f.string.uuid()],
]

/**
 * A value for a field of scalar type `scalar`: built-in scalars follow the field's name (an `email`
 * String gets an address), custom ones their own name (DateTime, URI, …), anything unknown a string.
 */
export function scalarValue(scalar: string, field: string, faker: Faker): unknown {
  const kind = BUILT_IN[scalar]
  if (kind) return valueForField(field, kind, faker)
  for (const [pattern, make] of CUSTOM_RULES) if (pattern.test(scalar)) return make(faker, field)
  return valueForField(field, 'string', faker)
}
