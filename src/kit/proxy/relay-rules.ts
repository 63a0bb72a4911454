/**
 * The rules of the UDP relay (`relay.ts`): which datagrams suffer which fault. Random
 * choices come from a seeded PRNG per rule, so the same seed and the same traffic give the
 * same faults.
 */

export type Direction = "up" | "down"

/** What a rule's predicate may look at besides the text. */
export interface DatagramInfo {
  readonly dir: Direction
  /** The client this datagram comes from ("up") or goes to ("down"), as "address:port". */
  readonly client: string
  /** 0-based ordinal among all datagrams the relay has seen in this direction. */
  readonly seq: number
  readonly bytes: Buffer
}

/** A text prefix ("PLAY" matches "PLAY Alice"), a pattern, or any predicate. */
export type Match = string | RegExp | ((text: string, info: DatagramInfo) => boolean)

/**
 * Which of the datagrams a rule matches it acts on, counting its matches from 1:
 * all of them, the first n, every k-th (k, 2k, …), the listed ordinals, or each one with
 * probability p drawn from the rule's seeded PRNG.
 */
export type Occurrences =
  | "all"
  | { readonly first: number }
  | { readonly every: number }
  | { readonly nth: ReadonlyArray<number> }
  | { readonly probability: number }

export interface RuleSpec {
  /** Default "both". */
  readonly dir?: Direction | "both"
  /** Default: every datagram. */
  readonly match?: Match
  /** Default "all". */
  readonly when?: Occurrences
  /** Names the rule in the event log; default like "drop#1". */
  readonly label?: string
  /** Overrides the seed this rule's PRNG derives from the relay's seed. */
  readonly seed?: number
}

export type Action =
  | { readonly kind: "drop" }
  /** Sends the datagram and then `copies` more of it. */
  | { readonly kind: "duplicate"; readonly copies: number }
  /**
   * Sends it after `ms` (a real timer), or after a time drawn from `ms`..`maxMs`, so
   * datagrams behind it may overtake it.
   */
  | { readonly kind: "delay"; readonly ms: number; readonly maxMs?: number }
  /** Keeps it until the rule's `release` is called: reordering by hand. */
  | { readonly kind: "hold" }
  /**
   * Sends it just after the next datagram in the same direction for the same client, or
   * after `maxWaitMs` if none comes: two neighbours swapped.
   */
  | { readonly kind: "reorder"; readonly maxWaitMs: number }

/** mulberry32: a tiny, fast 32-bit PRNG, enough for choosing faults reproducibly in a socket callback. */
export const mulberry32 = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
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

/** Decides, for the n-th match (from 1), whether the rule acts. */
export const selectorOf = (when: Occurrences, random: () => number): ((n: number) => boolean) => {
  if (when === "all") return () => true
  if ("first" in when) return (n) => n <= when.first
  if ("every" in when) return (n) => n % when.every === 0
  if ("nth" in when) return (n) => when.nth.includes(n)
  // Draws only for matched datagrams, so unrelated traffic does not shift the choices.
  return () => random() < when.probability
}

/** A datagram in flight through the relay. */
export interface Packet extends DatagramInfo {
  readonly text: string
  /** The client's endpoint: sender of an "up" datagram, addressee of a "down" one. */
  readonly clientAt: { readonly address: string; readonly port: number }
}

/** A rule added to a relay; `remove()` stops it acting on later datagrams. */
export class RuleHandle {
  /** Datagrams this rule matched (whether or not it acted). */
  matched = 0
  /** Datagrams this rule acted on. */
  fired = 0

  constructor(
    readonly label: string,
    readonly action: Action,
    readonly dirs: ReadonlySet<Direction>,
    readonly matches: (text: string, info: DatagramInfo) => boolean,
    /** Given the rule's n-th match (from 1), whether it acts. */
    readonly selects: (n: number) => boolean,
    /** The rule's own seeded draws, for actions that choose (a delay in a range). */
    readonly random: () => number,
    private readonly onRemove: (rule: RuleHandle) => void
  ) {}

  remove(): void {
    this.onRemove(this)
  }
}

/** A hold rule: its datagrams wait, in arrival order, until released (even after `remove()`). */
export class HoldHandle extends RuleHandle {
  readonly waiting: Array<Packet> = []

  constructor(
    rule: ConstructorParameters<typeof RuleHandle>,
    private readonly sendLate: (packet: Packet, rule: string) => void
  ) {
    super(...rule)
  }

  /** Texts of the datagrams held now, oldest first. */
  get held(): ReadonlyArray<string> {
    return this.waiting.map((packet) => packet.text)
  }

  /** Sends the oldest `count` held datagrams (default all) in order; returns how many. */
  release(count = Infinity): number {
    const released = this.waiting.splice(0, count)
    for (const packet of released) this.sendLate(packet, this.label)
    return released.length
  }
}
