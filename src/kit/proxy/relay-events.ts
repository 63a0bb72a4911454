import type { Action, Direction } from "./relay-rules.js"

/** What the relay did, kept in order, for listeners and for tests that wait for an event. */

/**
 * What the relay did. Each datagram it receives logs exactly one of "forward", "drop",
 * "duplicate", "delay", "hold" or "reorder"; one sent late logs "release" when finally sent.
 */
export type RelayEventKind = Action["kind"] | "forward" | "release"

export interface RelayEvent {
  /** Position among the events so far. */
  readonly index: number
  readonly kind: RelayEventKind
  readonly dir: Direction
  readonly client: string
  /** Clients numbered from 1 in order of their first datagram. */
  readonly clientNumber: number
  readonly text: string
  readonly bytes: Buffer
  readonly seq: number
  /** Milliseconds since the relay started. */
  readonly at: number
  /** The rule that acted, if any. */
  readonly rule: string | undefined
  /** Extra copies sent, for "duplicate". */
  readonly copies: number | undefined
  /** The delay, for "delay". */
  readonly ms: number | undefined
}

export interface DirectionCounters {
  /** Datagrams received from this direction's sender. */
  seen: number
  /** Datagrams sent on, counting every copy and late (delayed, reordered or held) sends. */
  forwarded: number
  dropped: number
  /** Extra copies sent (not counting the original). */
  duplicated: number
  delayed: number
  held: number
  reordered: number
}

export const newCounters = (): DirectionCounters => ({ seen: 0, forwarded: 0, dropped: 0, duplicated: 0, delayed: 0, held: 0, reordered: 0 })

interface Waiter {
  readonly predicate: (event: RelayEvent) => boolean
  readonly resolve: (event: RelayEvent) => void
  readonly reject: (error: Error) => void
  readonly timer: NodeJS.Timeout
}

const describeEvent = (e: RelayEvent) => `${e.kind} ${e.dir} ${JSON.stringify(e.text.slice(0, 40))}`

export class EventLog {
  /** Every event so far, in order (when kept). */
  readonly events: Array<RelayEvent> = []
  private readonly waiters = new Set<Waiter>()
  private readonly listeners = new Set<(event: RelayEvent) => void>()
  private count = 0

  constructor(private readonly keep: boolean) {}

  /** Numbers the event, keeps it, and hands it to every listener and waiter. */
  add(fields: Omit<RelayEvent, "index">): void {
    const event: RelayEvent = { index: this.count++, ...fields }
    if (this.keep) this.events.push(event)
    for (const listener of this.listeners) listener(event)
    for (const waiter of [...this.waiters]) {
      let matched: boolean
      try {
        matched = waiter.predicate(event)
      } catch (error) {
        waiter.reject(error instanceof Error ? error : new Error(String(error)))
        continue
      }
      if (matched) waiter.resolve(event)
    }
  }

  onEvent(listener: (event: RelayEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  next(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what: string): Promise<RelayEvent> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        resolve: (event) => {
          this.dismiss(waiter)
          resolve(event)
        },
        reject: (error) => {
          this.dismiss(waiter)
          reject(error)
        },
        timer: setTimeout(() => {
          const recent = this.events.slice(-5).map(describeEvent).join("; ") || "none"
          waiter.reject(new Error(`relay: timed out after ${timeoutMs} ms waiting for ${what} (last events: ${recent})`))
        }, timeoutMs)
      }
      this.waiters.add(waiter)
    })
  }

  waitFor(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what: string): Promise<RelayEvent> {
    const logged = this.events.find(predicate)
    return logged !== undefined ? Promise.resolve(logged) : this.next(predicate, timeoutMs, what)
  }

  rejectAll(error: Error): void {
    for (const waiter of [...this.waiters]) waiter.reject(error)
  }

  private dismiss(waiter: Waiter) {
    clearTimeout(waiter.timer)
    this.waiters.delete(waiter)
  }
}
