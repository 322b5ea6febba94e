import type { Faker } from '@faker-js/faker'

/** The scalar a schema asks for; the field's name then says what kind of value fits. */
export type ScalarKind = 'string' | 'int' | 'float' | 'boolean' | 'id' | 'datetime' | 'date'

type Rule = [RegExp, (faker: Faker) => unknown]

// Words of the field name (camelCase, snake_case and kebab-case split), matched as a whole.
const STRING_RULES: Rule[] = [
  [/^e?mail( ?address)?$|email$/, (f) => f.internet.email()],
  [/^(first|given) ?name$/, (f) => f.person.firstName()],
  [/^(last|family|sur) ?name$/, (f) => f.person.lastName()],
  [/^(user ?name|login|handle|nick ?name|screen ?name)$/, (f) => f.internet.username()],
  [/(^| )name$|^(author|owner|customer|person|contact|director|producer|manager)$/, (f) => f.person.fullName()],
  [/^(title|headline|subject|summary)$/, (f) => f.lorem.sentence({ min: 3, max: 6 }).replace(/\.$/, '')],
  [/(description|body|content|text|message|comment|bio|note|opening crawl|crawl)$/, (f) => f.lorem.sentences(2)],
  [/(url|uri|href|link|website|homepage)$/, (f) => f.internet.url()],
  [/(avatar|image|photo|picture|thumbnail)( url)?$/, (f) => f.image.url()],
  [/(phone|mobile|telephone|fax)( number)?$/, (f) => f.phone.number()],
  [/^(street|address|street address|address line ?1?)$/, (f) => f.location.streetAddress()],
  [/city$/, (f) => f.location.city()],
  [/(state|province|region)$/, (f) => f.location.state()],
  [/country( code)?$/, (f) => f.location.countryCode()],
  [/(zip|postal) ?code$|^zip$/, (f) => f.location.zipCode()],
  [/(company|organization|organisation|employer)( name)?$/, (f) => f.company.name()],
  [/(currency)( code)?$/, (f) => f.finance.currencyCode()],
  [/(color|colour)$/, (f) => f.color.human()],
  [/(ip|ip address)$/, (f) => f.internet.ipv4()],
  [/(uuid|guid)$/, (f) => f.string.uuid()],
  [/(sha|hash|digest|oid|checksum)$/, (f) => f.git.commitSha()],
  [/(password|secret|token)$/, (f) => f.internet.password()],
  [/(status|state)$/, (f) => f.helpers.arrayElement(['active', 'pending', 'closed'])],
  [/(language|locale)$/, (f) => f.helpers.arrayElement(['en', 'fr', 'de', 'es'])],
  [/(gender)$/, (f) => f.person.sex()],
  [/(job|occupation)( title)?$/, (f) => f.person.jobTitle()],
]

const NUMBER_RULES: Rule[] = [
  [/(price|amount|cost|total|balance|salary|fee)$/, (f) => Number(f.commerce.price())],
  [/(age)$/, (f) => f.number.int({ min: 18, max: 90 })],
  [/(year)$/, (f) => f.number.int({ min: 1970, max: 2026 })],
  [/(lat|latitude)$/, (f) => f.location.latitude()],
  [/(lng|lon|long|longitude)$/, (f) => f.location.longitude()],
  [/(percent|percentage|rating|score)$/, (f) => f.number.int({ min: 0, max: 100 })],
  [/(count|total|number|size|length|quantity|episode id)$/, (f) => f.number.int({ min: 0, max: 500 })],
]

const DATE_NAME = /(date|time|at|on|timestamp|created|updated|modified|deleted|published|released|birthday|expires)$/

/**
 * `createdAt` → `created at`, `release_date` → `release date`, `HTTPStatus` → `http status`.
 * Names come from imported schemas: every pattern here runs in linear time (`([A-Z]+)([A-Z][a-z])`
 * was quadratic, 0.5 s per value for a 20,000-letter name).
 */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase()
}

function firstRule(rules: Rule[], words: string, faker: Faker): unknown {
  for (const [pattern, make] of rules) if (pattern.test(words)) return make(faker)
  return undefined
}

/**
 * A value of `kind` that fits a field called `name`: `email` gets an address, `createdAt` a
 * timestamp, `price` an amount; otherwise a plain value of the kind.
 */
export function valueForField(name: string, kind: ScalarKind, faker: Faker): unknown {
  const words = nameWords(name)
  switch (kind) {
    case 'boolean':
      return faker.datatype.boolean()
    case 'id':
      return faker.string.uuid()
    case 'datetime':
      return faker.date.recent({ days: 365 }).toISOString()
    case 'date':
      return faker.date.recent({ days: 365 }).toISOString().slice(0, 10)
    case 'int': {
      const value = firstRule(NUMBER_RULES, words, faker)
      return typeof value === 'number' ? Math.round(value) : faker.number.int({ min: 1, max: 1000 })
    }
    case 'float': {
      const value = firstRule(NUMBER_RULES, words, faker)
      return typeof value === 'number' ? value : faker.number.float({ min: 0, max: 1000, fractionDigits: 2 })
    }
    case 'string': {
      if (/(^| )id$/.test(words)) return faker.string.uuid()
      if (DATE_NAME.test(words) && !/(^| )(state|format)$/.test(words)) return faker.date.recent({ days: 365 }).toISOString()
      const value = firstRule(STRING_RULES, words, faker)
      return value === undefined ? faker.lorem.words({ min: 1, max: 3 }) : String(value)
    }
  }
}
