/**
 * What the relay does to a datagram that a rule took: the rules as the relay keeps them, what
 * acting on one needs of the relay, and the hand a test holds a rule by.
 */
import { Effect } from "effect"
import type { Endpoint } from "../../net/udp.js"
import { bytesOf } from "../conformance/escaping.js"
import type { RelayEvent, RelayEventKind } from "./relay-events.js"
import {
  type Action,
  type DatagramInfo,
  type Direction,
  drawsFrom,
  matcherOf,
  type Rewritten,
  type Rule,
  ruleSeed,
  selectorOf
} from "./relay-rules.js"

/** A rule at work in a relay. */
export interface RuleHandle {
  readonly label: string
  /** The datagrams it matched so far, and those of them it acted on. */
  readonly counts: Effect.Effect<{ readonly matched: number; readonly fired: number }>
  /** For a hold: the texts of the datagrams it holds now, oldest first. */
  readonly held: Effect.Effect<ReadonlyArray<string>>
  /** For a hold: sends the oldest `count` (default all) of the datagrams it holds, in order; gives how many. */
  readonly release: (count?: number) => Effect.Effect<number>
  /** Stops it acting on later datagrams (those it holds stay releasable). */
  readonly remove: Effect.Effect<void>
}

/** A datagram in flight through the relay. */
export interface Packet extends DatagramInfo {
  readonly text: string
  /** The client's endpoint: sender of an "up" datagram, addressee of a "down" one. */
  readonly clientAt: Endpoint
}

export interface ActiveRule {
  readonly label: string
  readonly action: Action
  readonly dirs: ReadonlySet<Direction>
  readonly matches: (text: string, info: DatagramInfo) => boolean
  readonly selects: (n: number) => boolean
  /** The rule's own seeded draws, also for actions that choose (a delay in a range). */
  readonly draw: () => number
  matched: number
  fired: number
  /** What a hold holds, in arrival order. */
  readonly waiting: Array<Packet>
}

export interface Client {
  readonly number: number
  fromClient: number
  fromServer: number
}

const isBack = (each: Rewritten): each is { readonly back: string | Uint8Array } => typeof each === "object" && "back" in each

/** What acting on a rule needs of its relay. */
export interface Acting {
  readonly publish: (kind: RelayEventKind, packet: Packet, rule: string | undefined, extra?: Partial<Pick<RelayEvent, "copies" | "ms" | "sent">>) => void
  readonly transmit: (packet: Packet, bytes?: ReadonlyArray<Uint8Array>) => void
  readonly deliver: (dir: Direction, key: string, clientAt: Endpoint, bytes: Uint8Array) => void
  readonly sendLate: (packet: Packet, rule: string) => void
  readonly later: (ms: number, then: () => void) => void
  readonly reordering: Map<string, { readonly packet: Packet; readonly rule: string }>
  readonly releaseReordered: (key: string) => void
}

/** What `rule` does to `packet`, which it matched and selected. */
export const applyRule = (relay: Acting, rule: ActiveRule, packet: Packet, client: Client) => {
  const { deliver, later, publish, releaseReordered, reordering, sendLate, transmit } = relay
  const action = rule.action
  switch (action.kind) {
    case "drop":
      return publish("drop", packet, rule.label)
    case "duplicate":
      publish("duplicate", packet, rule.label, { copies: action.copies })
      for (let i = 0; i <= action.copies; i++) transmit(packet)
      return
    case "delay": {
      const ms = action.maxMs === undefined ? action.ms : action.ms + Math.floor(rule.draw() * (action.maxMs - action.ms + 1))
      publish("delay", packet, rule.label, { ms })
      return later(ms, () => sendLate(packet, rule.label))
    }
    case "reorder": {
      const key = `${packet.dir} ${packet.client}`
      // One datagram waits at a time: a second one chosen meanwhile simply passes it.
      if (reordering.has(key)) {
        publish("forward", packet, undefined)
        return transmit(packet)
      }
      publish("reorder", packet, rule.label)
      const waiting = { packet, rule: rule.label }
      reordering.set(key, waiting)
      return later(action.maxWaitMs, () => reordering.get(key) === waiting && releaseReordered(key))
    }
    case "hold":
      publish("hold", packet, rule.label)
      return void rule.waiting.push(packet)
    case "rewrite": {
      const out = action.into(packet.text, packet, { client: client.number, fromClient: client.fromClient, fromServer: client.fromServer })
      const on = out.flatMap((each) => (isBack(each) ? [] : [bytesOf(each)]))
      publish("rewrite", packet, rule.label, { sent: on.length })
      transmit(packet, on)
      const back = packet.dir === "up" ? "down" : "up"
      for (const each of out) if (isBack(each)) deliver(back, packet.client, packet.clientAt, bytesOf(each.back))
      return
    }
  }
}

/** A rule as the relay keeps it, the `number`th added. */
export const activate = (rule: Rule, number: number, seed: number): ActiveRule => {
  const dir = rule.dir ?? "both"
  const draw = drawsFrom(rule.seed ?? ruleSeed(seed, number))
  return {
    label: rule.label ?? `${rule.action.kind}#${number}`,
    action: rule.action,
    dirs: new Set<Direction>(dir === "both" ? ["up", "down"] : [dir]),
    matches: matcherOf(rule.match),
    selects: selectorOf(rule.when ?? "all", draw),
    draw,
    matched: 0,
    fired: 0,
    waiting: []
  }
}

/** The hand a test holds an active rule by: its counts, what it holds, releasing, removing. */
export const handleOf = (active: ActiveRule, rules: Array<ActiveRule>, sendLate: (packet: Packet, rule: string) => void): RuleHandle => ({
  label: active.label,
  counts: Effect.sync(() => ({ matched: active.matched, fired: active.fired })),
  held: Effect.sync(() => active.waiting.map((packet) => packet.text)),
  release: (count = Infinity) =>
    Effect.sync(() => {
      const released = active.waiting.splice(0, count)
      for (const packet of released) sendLate(packet, active.label)
      return released.length
    }),
  remove: Effect.sync(() => {
    const at = rules.indexOf(active)
    if (at >= 0) rules.splice(at, 1)
  })
})
