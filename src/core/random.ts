/**
 * The game's random generator as a plain value kept in the game state (mulberry32 over a
 * 32-bit number), so that every transition, joining included, is a plain function and a
 * game can be replayed from any state. Effect's `Random` service seeds it once, in `newGame`.
 */
export type RandomState = number

/** A whole number in [low, high), and the generator's next state. */
export const nextIntBetween = (random: RandomState, low: number, high: number): readonly [number, RandomState] => {
  const next = (random + 0x6d2b79f5) | 0
  let t = Math.imul(next ^ (next >>> 15), next | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296
  return [low + Math.floor(unit * (high - low)), next]
}
