import type { Requirement } from "./requirements.js"

/** One thing a check found wrong: what was sent, what came back and the requirement it breaks. */
export interface Failure {
  /** What went wrong, in a sentence. */
  readonly what: string
  /** What the checker sent, escaped: a datagram, or keys typed. */
  readonly sent?: string
  /** What came back, escaped: a datagram, a screen line, or nothing within a time. */
  readonly got?: string
  /** Lines that show it better than a sentence: the cells of two views that differ, side by side. */
  readonly detail?: ReadonlyArray<string>
  /** The sentence of the requirements spec it breaks (`spec` in the JSON graders read). */
  readonly spec: Requirement
}

/** Failures that differ only in their numbers and quotes, once, with how many more there were. */
export const alike = (failures: ReadonlyArray<Failure>): ReadonlyArray<Failure> => {
  const kinds = new Map<string, { first: Failure; more: number }>()
  for (const failure of failures) {
    const kind = `${failure.spec.line} ${failure.what.replace(/'[^']*'|"[^"]*"|\b[A-Z]\b|\d+/g, "_")}`
    const seen = kinds.get(kind)
    if (seen) seen.more++
    else kinds.set(kind, { first: failure, more: 0 })
  }
  return [...kinds.values()].map(({ first, more }) => (more === 0 ? first : { ...first, what: `${first.what} (and ${more} more like it)` }))
}
