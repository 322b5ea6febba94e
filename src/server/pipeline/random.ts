import { loadFaker } from '../../engine/generators.ts'
import type { Random } from '../../engine/policy.ts'

/**
 * The policy's draws from faker's seeded Mersenne Twister, in a faker instance of their own: the
 * same seed gives the same sequence of simulated errors, and data generation is not disturbed.
 * Faker loads only when a seed is given.
 */
export async function seededRandom(seed: number): Promise<Random> {
  const faker = (await loadFaker())(seed)
  return () => faker.number.float({ min: 0, max: 1 })
}
