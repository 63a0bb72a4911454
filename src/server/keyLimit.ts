import type { ClientId } from "../core/state.js"

/**
 * Keys each client may press per second, on average: more than any person can (a held key
 * repeats 25 to 40 times a second), so that one flooder cannot make the server's whole job
 * the views it sends to everyone for each key it takes.
 */
export const keysPerSecond = 60

/** Clients tracked before those at rest are dropped: a client at rest is no different from a new one. */
const tracked = 4096

/**
 * A token bucket per client: `keysPerSecond` a second, up to a second's worth saved up. A
 * key over the limit is dropped, as if its datagram were lost.
 */
export class KeyLimit {
  private readonly buckets = new Map<ClientId, { tokens: number; at: number }>()

  constructor(private readonly perSecond = keysPerSecond) {}

  /** Whether `client` may press a key at `now` (ms); if so, the key is counted. */
  allow(client: ClientId, now: number): boolean {
    const bucket = this.buckets.get(client)
    if (bucket === undefined) {
      if (this.buckets.size >= tracked) this.dropRested(now)
      this.buckets.set(client, { tokens: this.perSecond - 1, at: now })
      return true
    }
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000)
    bucket.at = now
    if (bucket.tokens < 1) return false
    bucket.tokens--
    return true
  }

  forget(client: ClientId): void {
    this.buckets.delete(client)
  }

  private dropRested(now: number): void {
    for (const [client, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000 >= this.perSecond) this.buckets.delete(client)
    }
  }
}
