import { nextFraction, type RandomState } from "../../core/random.js"

/**
 * The rules of the UDP relay (`relay.ts`), as plain data: which datagrams (`dir`, `match`,
 * `when`) suffer which fault (`action`). Random choices come from the core's seeded
 * generator, one state per rule, so the same seed and the same traffic give the same faults.
 */

export type Direction = "up" | "down"

/** What a rule's predicate may look at besides the text. */
export interface DatagramInfo {
  readonly dir: Direction
  /** The client this datagram comes from ("up") or goes to ("down"), as "address:port". */
  readonly client: string
  /** 0-based ordinal among all datagrams the relay has seen in this direction. */
  readonly seq: number
  readonly bytes: Uint8Array
}

/** A text prefix ("PLAY" matches "PLAY Alice"), a pattern, or any predicate. */
export type Match = string | RegExp | ((text: string, info: DatagramInfo) => boolean)

/**
 * Which of the datagrams a rule matches it acts on, counting its matches from 1:
 * all of them, the first n, every k-th (k, 2k, …), the listed ordinals, or each one with
 * probability p drawn from the rule's seeded generator.
 */
export type Occurrences =
  | "all"
  | { readonly first: number }
  | { readonly every: number }
  | { readonly nth: ReadonlyArray<number> }
  | { readonly probability: number }

/** The traffic of a datagram's client so far, this datagram included. */
export interface Traffic {
  /** Clients are numbered from 1 in order of their first datagram. */
  readonly client: number
  /** Datagrams from the client, and from the server to it. */
  readonly fromClient: number
  readonly fromServer: number
}

/** A datagram a rewrite sends in place of the one it took: on its way, or back to its sender. */
export type Rewritten = string | Uint8Array | { readonly back: string | Uint8Array }

export type Action =
  | { readonly kind: "drop" }
  /** Sends the datagram and then `copies` more of it. */
  | { readonly kind: "duplicate"; readonly copies: number }
  /**
   * Sends it after `ms`, or after a time drawn from `ms`..`maxMs`, so datagrams behind it
   * may overtake it.
   */
  | { readonly kind: "delay"; readonly ms: number; readonly maxMs?: number }
  /** Keeps it until the rule's `release`: reordering by hand. */
  | { readonly kind: "hold" }
  /**
   * Sends it just after the next datagram in the same direction for the same client, or
   * after `maxWaitMs` if none comes: two neighbours swapped.
   */
  | { readonly kind: "reorder"; readonly maxWaitMs: number }
  /**
   * Sends what `into` makes of it instead (text goes byte for byte, as latin1): nothing,
   * the same, another, several, or answers back to its sender.
   */
  | {
    readonly kind: "rewrite"
    readonly into: (text: string, info: DatagramInfo, traffic: Traffic) => ReadonlyArray<Rewritten>
  }

export interface Rule {
  readonly action: Action
  /** Default "both". */
  readonly dir?: Direction | "both"
  /** Default: every datagram. */
  readonly match?: Match
  /** Default "all". */
  readonly when?: Occurrences
  /** Names the rule in the event log; default like "drop#1". */
  readonly label?: string
  /** Overrides the seed this rule's generator derives from the relay's seed. */
  readonly seed?: number
}

/** Mixes the relay seed with a rule's number so rules draw independent streams. */
export const ruleSeed = (relaySeed: number, ruleNumber: number) =>
  Math.imul((relaySeed >>> 0) ^ Math.imul(ruleNumber, 0x9e3779b9), 0x85ebca6b) >>> 0

export const matcherOf = (match: Match | undefined): ((text: string, info: DatagramInfo) => boolean) => {
  if (match === undefined) return () => true
  if (typeof match === "string") return (text) => text.startsWith(match)
  if (match instanceof RegExp) {
    const pattern = new RegExp(match.source, match.flags.replace(/[gy]/g, "")) // stateless: no lastIndex
    return (text) => pattern.test(text)
  }
  return match
}

/** A rule's own draws from the core's generator, kept in its closure. */
export const drawsFrom = (seed: number): (() => number) => {
  let state: RandomState = seed
  return () => {
    const [fraction, next] = nextFraction(state)
    state = next
    return fraction
  }
}

/** Decides, for the n-th match (from 1), whether the rule acts. */
export const selectorOf = (when: Occurrences, draw: () => number): ((n: number) => boolean) => {
  if (when === "all") return () => true
  if ("first" in when) return (n) => n <= when.first
  if ("every" in when) return (n) => n % when.every === 0
  if ("nth" in when) return (n) => when.nth.includes(n)
  // Draws only for matched datagrams, so unrelated traffic does not shift the choices.
  return () => draw() < when.probability
}
