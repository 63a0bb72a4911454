/**
 * How many new games requests may start: `burst` at once, then `perSecond` (a token
 * bucket). Pure: the caller says what time it is.
 */
export class StartPace {
  private tokens: number
  private at: number

  constructor(private readonly rate: { readonly perSecond: number; readonly burst: number }, now: number) {
    this.tokens = rate.burst
    this.at = now
  }

  /** Whether one more game may start at `now` (ms); if so, it is counted. */
  take(now: number): boolean {
    this.tokens = Math.min(this.rate.burst, this.tokens + (Math.max(0, now - this.at) / 1000) * this.rate.perSecond)
    this.at = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
}
