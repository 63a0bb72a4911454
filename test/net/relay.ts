import { Effect, Queue, type Scope } from "effect"
import { Silence } from "../../src/net/inbox.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import type { UdpError } from "../../src/net/udp.js"
import { makeRelay, type RelayOptions, type RuleHandle } from "../../src/kit/proxy/relay.js"
import type { RelayEvent } from "../../src/kit/proxy/relay-events.js"
import type { Direction, Rule } from "../../src/kit/proxy/relay-rules.js"

/**
 * The deterministic UDP fault injector the network tests use: the relay of `nuggets proxy`
 * (see `src/kit/proxy/relay.ts`) on loopback, with a seed, and what only tests ask of it:
 * rules by name, every event kept, waits for an event, counts.
 */

export type { RelayEvent, RelayOptions, RuleHandle }

/** Which datagrams a rule takes: a rule without its action. */
export type RuleSpec = Omit<Rule, "action">

export interface DirectionCounters {
  /** Datagrams received from this direction's sender. */
  readonly seen: number
  /** Datagrams sent on, counting every copy and late (delayed, reordered or held) sends. */
  readonly forwarded: number
  readonly dropped: number
  /** Extra copies sent (not counting the original). */
  readonly duplicated: number
  readonly delayed: number
  readonly held: number
  readonly reordered: number
}

export interface TestRelay {
  readonly port: number
  readonly add: (rule: Rule) => Effect.Effect<RuleHandle>
  readonly drop: (spec?: RuleSpec) => Effect.Effect<RuleHandle>
  /** Sends each chosen datagram, then `copies` (default 1) more of it. */
  readonly duplicate: (spec?: RuleSpec & { readonly copies?: number }) => Effect.Effect<RuleHandle>
  /** Delays each chosen datagram by `ms`, or by a time drawn from `ms`..`maxMs`. */
  readonly delay: (spec: RuleSpec & { readonly ms: number; readonly maxMs?: number }) => Effect.Effect<RuleHandle>
  /** Lets the next datagram (same direction, same client) overtake each chosen one. */
  readonly reorder: (spec?: RuleSpec & { readonly maxWaitMs?: number }) => Effect.Effect<RuleHandle>
  readonly hold: (spec?: RuleSpec) => Effect.Effect<RuleHandle>
  /** Every event so far, in order. */
  readonly events: Effect.Effect<ReadonlyArray<RelayEvent>>
  /** The first event from now on for which `wanted` holds; `Silence` after `ms`. */
  readonly next: (wanted: (event: RelayEvent) => boolean, ms: number, what?: string) => Effect.Effect<RelayEvent, Silence>
  /** Like `next`, but an event already there counts too. */
  readonly waitFor: (wanted: (event: RelayEvent) => boolean, ms: number, what?: string) => Effect.Effect<RelayEvent, Silence>
  /** What became of the datagrams so far, each way, counted from the events. */
  readonly counters: Effect.Effect<Record<Direction, DirectionCounters>>
  /** Delayed, reordered and held datagrams not yet sent. */
  readonly pending: Effect.Effect<number>
}

const describeEvent = (event: RelayEvent) => `${event.kind} ${event.dir} ${JSON.stringify(event.text.slice(0, 40))}`

const countersOf = (events: ReadonlyArray<RelayEvent>, dir: Direction): DirectionCounters => {
  const mine = events.filter((event) => event.dir === dir)
  const count = (kind: RelayEvent["kind"]) => mine.filter((event) => event.kind === kind).length
  const sum = (values: ReadonlyArray<number | undefined>) => values.reduce<number>((total, each) => total + (each ?? 0), 0)
  return {
    seen: mine.length - count("release"),
    forwarded: count("forward") + count("release") + sum(mine.map((event) =>
      event.kind === "duplicate" ? (event.copies ?? 0) + 1 : event.kind === "rewrite" ? event.sent : 0
    )),
    dropped: count("drop"),
    duplicated: sum(mine.filter((event) => event.kind === "duplicate").map((event) => event.copies)),
    delayed: count("delay"),
    held: count("hold"),
    reordered: count("reorder")
  }
}

/** A relay in front of `options.server`, on Node's sockets, closed with the scope. */
export const relayResource = (options: RelayOptions): Effect.Effect<TestRelay, UdpError, Scope.Scope> =>
  Effect.gen(function*() {
    const relay = yield* makeRelay(options)
    const subscription = yield* relay.subscribe
    const kept: Array<RelayEvent> = []
    const events = Queue.takeAll(subscription).pipe(Effect.map((taken) => {
      kept.push(...taken)
      return kept as ReadonlyArray<RelayEvent>
    }))
    /** The first event from the index `from` on (kept or still to come) for which `wanted` holds. */
    const find = (from: number, wanted: (event: RelayEvent) => boolean, ms: number, what: string) => {
      const loop: Effect.Effect<RelayEvent> = Queue.take(subscription).pipe(
        Effect.flatMap((event) => {
          kept.push(event)
          return wanted(event) ? Effect.succeed(event) : loop
        })
      )
      return Effect.suspend(() => {
        const found = kept.slice(from).find(wanted)
        return found !== undefined ? Effect.succeed(found) : loop
      }).pipe(
        Effect.timeoutFail({
          duration: ms,
          onTimeout: () => new Silence({ from: "the relay", what, ms, instead: kept.slice(-5).map(describeEvent) })
        })
      )
    }
    const rule = (action: Rule["action"]) => (spec: RuleSpec = {}) => relay.add({ ...spec, action })
    const testRelay: TestRelay = {
      port: relay.port,
      add: relay.add,
      drop: rule({ kind: "drop" }),
      duplicate: ({ copies = 1, ...spec } = {}) => rule({ kind: "duplicate", copies })(spec),
      delay: ({ ms, maxMs, ...spec }) => rule(maxMs === undefined ? { kind: "delay", ms } : { kind: "delay", ms, maxMs })(spec),
      reorder: ({ maxWaitMs = 200, ...spec } = {}) => rule({ kind: "reorder", maxWaitMs })(spec),
      hold: rule({ kind: "hold" }),
      events,
      next: (wanted, ms, what = "a matching event") => Effect.flatMap(events, (all) => find(all.length, wanted, ms, what)),
      waitFor: (wanted, ms, what = "a matching event") => Effect.flatMap(events, () => find(0, wanted, ms, what)),
      counters: Effect.map(events, (all) => ({ up: countersOf(all, "up"), down: countersOf(all, "down") })),
      pending: Effect.map(events, (all) => {
        const late = all.filter((event) => event.kind === "delay" || event.kind === "reorder" || event.kind === "hold").length
        return late - all.filter((event) => event.kind === "release").length
      })
    }
    return testRelay
  }).pipe(Effect.provide(nodeUdpLayer))
