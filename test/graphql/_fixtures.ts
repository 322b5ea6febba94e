import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const fixturePath = (path: string): string => fileURLToPath(new URL(`../../fixtures/graphql/${path}`, import.meta.url))

export const readFixture = (path: string): string => readFileSync(fixturePath(path), 'utf8')
