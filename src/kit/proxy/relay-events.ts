import type { Action, Direction } from "./relay-rules.js"

/**
 * What the relay did, an event per thing it did, published in order to whoever subscribed
 * (the proxy's timeline and transcript, a test awaiting a fault).
 */

/**
 * Each datagram the relay receives gives exactly one of "forward", "drop", "duplicate",
 * "delay", "hold", "reorder" or "rewrite"; one sent late gives "release" when finally sent.
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
  /** The datagram byte for byte (latin1). */
  readonly text: string
  readonly bytes: Uint8Array
  readonly seq: number
  /** Milliseconds since the relay started, by Effect's `Clock`. */
  readonly at: number
  /** The rule that acted, if any. */
  readonly rule: string | undefined
  /** Extra copies sent, for "duplicate". */
  readonly copies: number | undefined
  /** The delay, for "delay". */
  readonly ms: number | undefined
  /** Datagrams sent on in its place, for "rewrite" (those sent back not counted). */
  readonly sent: number | undefined
}
