import { type Clock, Effect } from "effect"

/** Warnings of one kind logged in a minute; the rest are counted. */
const perMinute = 3
const minute = 60_000

/**
 * Warnings about what strangers send, rate-limited by kind: the first few in a minute are
 * logged, the rest counted and told in one line once the minute is over. A flood of bad
 * requests costs a few lines of log, not one per request.
 */
export class RateLimitedLog {
  private readonly kinds = new Map<string, { since: number; logged: number; held: number }>()

  private constructor(private readonly clock: Clock.Clock) {}

  static readonly make: Effect.Effect<RateLimitedLog> = Effect.map(Effect.clock, (clock) => new RateLimitedLog(clock))

  warning(kind: string, line: string): Effect.Effect<void> {
    const now = this.clock.unsafeCurrentTimeMillis()
    let count = this.kinds.get(kind)
    let held = Effect.void
    if (count === undefined || now - count.since >= minute) {
      if (count !== undefined && count.held > 0) held = Effect.logWarning(`${count.held} more like this in the last minute: ${line}`)
      count = { since: now, logged: 0, held: 0 }
      this.kinds.set(kind, count)
    }
    if (count.logged >= perMinute) {
      count.held++
      return held
    }
    count.logged++
    return Effect.zipRight(held, Effect.logWarning(line))
  }
}
