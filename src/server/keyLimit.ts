import type { ClientId } from "../core/state.js"

/**
 * Keys each client may press per second, on average: more than any person can (a held key
 * repeats 25 to 40 times a second), so that one flooder cannot make the server's whole job
 * the views it sends to everyone for each key it takes.
 */
export const keysPerSecond = 60

/** Keys of one client that may wait for their turn; more are dropped, as if lost. */
export const maxWaitingKeys = 16

/** Clients tracked before those at rest are dropped: a client at rest is no different from a new one. */
const tracked = 4096

/**
 * A bucket's saving, in thousandths of a key: a millisecond adds `perSecond` of them, and a key
 * takes `aKey`. Whole numbers only (at the product's rate of 60): a saving that turned
 * fractional after some number of milliseconds, at a moment that depended on the machine's
 * timing, made the optimised code of a server's keystroke path be thrown away and made again.
 */
const aKey = 1000

interface Bucket {
  saved: number
  at: number
  /** Keys waiting for their turn, in order. */
  readonly waiting: Array<() => void>
  /** A turn is booked for the first of `waiting`. */
  booked: boolean
}

export type Verdict = "now" | "later" | "dropped"

/**
 * A token bucket per client: `perSecond` keys a second, a second's worth saved up. A key
 * within the rate is taken at once; one beyond it waits its turn behind the client's
 * earlier keys (a client that presses as fast as the server answers just goes at the
 * rate), up to `maxWaitingKeys`; beyond that it is dropped.
 */
export class KeyLimit {
  private readonly buckets = new Map<ClientId, Bucket>()
  /** A second's worth of keys: what a bucket saves up at most. */
  private readonly full: number

  /**
   * `now` reads the clock (ms); `later(ms, run)` runs `run` that much later, on the same
   * clock: the host gives both from its fiber, so that tests can drive them.
   */
  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
    private readonly later: (ms: number, run: () => void) => void
  ) {
    this.full = perSecond * aKey
  }

  /** A key from `client`: "now" if it may be taken at once (it is counted); else `run` is called at its turn, or the key dropped. */
  press(client: ClientId, run: () => void): Verdict {
    // No limit at all (Infinity): nothing to count.
    if (!Number.isFinite(this.perSecond)) return "now"
    const bucket = this.bucket(client)
    if (bucket.waiting.length === 0 && bucket.saved >= aKey) {
      bucket.saved -= aKey
      return "now"
    }
    if (bucket.waiting.length >= maxWaitingKeys) return "dropped"
    bucket.waiting.push(run)
    this.book(client, bucket)
    return "later"
  }

  forget(client: ClientId): void {
    this.buckets.delete(client)
  }

  private bucket(client: ClientId): Bucket {
    const now = this.now()
    let bucket = this.buckets.get(client)
    if (bucket === undefined) {
      if (this.buckets.size >= tracked) this.dropRested(now)
      bucket = { saved: this.full, at: now, waiting: [], booked: false }
      this.buckets.set(client, bucket)
    }
    bucket.saved = Math.min(this.full, bucket.saved + (now - bucket.at) * this.perSecond)
    bucket.at = now
    return bucket
  }

  private book(client: ClientId, bucket: Bucket): void {
    if (bucket.booked) return
    bucket.booked = true
    this.later(Math.ceil((aKey - bucket.saved) / this.perSecond), () => {
      bucket.booked = false
      if (this.buckets.get(client) !== bucket) return
      const refilled = this.bucket(client)
      while (refilled.waiting.length > 0 && refilled.saved >= aKey) {
        refilled.saved -= aKey
        refilled.waiting.shift()!()
      }
      if (refilled.waiting.length > 0) this.book(client, refilled)
    })
  }

  private dropRested(now: number): void {
    for (const [client, bucket] of this.buckets) {
      const rested = bucket.saved + (now - bucket.at) * this.perSecond >= this.full
      if (rested && bucket.waiting.length === 0) this.buckets.delete(client)
    }
  }
}
