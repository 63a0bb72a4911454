/**
 * The game's random generator as a plain value kept in the game state (mulberry32 over a
 * 32-bit number), so that every transition, joining included, is a plain function and a
 * game can be replayed from any state. Effect's `Random` service seeds it once, in `newGame`.
 * The proxy's faults draw from the same generator, one state per rule.
 */
export type RandomState = number

/** A fraction in [0, 1), and the generator's next state. */
export const nextFraction = (random: RandomState): readonly [number, RandomState] => {
  const next = (random + 0x6d2b79f5) | 0
  let t = Math.imul(next ^ (next >>> 15), next | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return [((t ^ (t >>> 14)) >>> 0) / 4294967296, next]
}

/** A whole number in [low, high), and the generator's next state. */
export const nextIntBetween = (random: RandomState, low: number, high: number): readonly [number, RandomState] => {
  const [unit, next] = nextFraction(random)
  return [low + Math.floor(unit * (high - low)), next]
}
