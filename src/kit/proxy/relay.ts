/**
 * A UDP relay with seeded faults, on sockets opened through the `Udp` service: it sits
 * between clients and a server and can drop, duplicate, delay, reorder, hold or rewrite
 * chosen datagrams, as its rules (plain data, `relay-rules.ts`) say. `nuggets proxy` is made
 * of it, and so are the network tests' fault injector and the kit's broken servers.
 *
 * Clients send to `relay.port` instead of the server's port; neither side knows the relay is
 * there. For each client address the relay opens its own upstream socket, so the server sees
 * one distinct address per client and its replies find their way back to the right client.
 * Datagrams are handled in the sockets' callbacks, in order; timers and the opening of
 * sockets are fibers in the relay's scope, timed by Effect's `Clock`. What it does is
 * published as events (`relay-events.ts`) to whoever subscribes.
 *
 * The relay is one closure over its sockets, its clients and its rules; what a rule does to a
 * datagram it took is `relay-acting.ts`.
 */
import { Duration, Effect, ExecutionStrategy, Exit, FiberSet, PubSub, type Queue, Schedule, Scope } from "effect"
import { elapsedFrom } from "../../net/clock.js"
import { type BoundSocket, type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import { latin1 } from "../../protocol/transcript.js"
import { type Acting, type ActiveRule, activate, applyRule, type Client, handleOf, type Packet, type RuleHandle } from "./relay-acting.js"
import type { RelayEvent, RelayEventKind } from "./relay-events.js"
import type { Direction, Rule } from "./relay-rules.js"

export type { RuleHandle } from "./relay-acting.js"

export interface RelayOptions {
  /** The real server. */
  readonly server: { readonly host: string; readonly port: number }
  /** Where clients send: 127.0.0.1 and a free port unless given. */
  readonly listen?: { readonly host?: string; readonly port?: number }
  /** The address the upstream sockets bind to (127.0.0.1 unless given). */
  readonly upstreamHost?: string
  /** Seeds every rule's generator (each rule derives its own from this and its number). Default 0. */
  readonly seed?: number
  /** The rules from the start, in order; more can be added later (`add`). */
  readonly rules?: ReadonlyArray<Rule>
  /** A client with no traffic either way for this long loses its upstream socket. Default: never. */
  readonly idleMs?: number
  /** At most this many clients at once; datagrams from more are dropped. Default 1024. */
  readonly maxClients?: number
}

export interface Relay {
  /** The port clients send to. */
  readonly port: number
  /** Every event from now on, in order, while the scope lasts (or the relay does). */
  readonly subscribe: Effect.Effect<Queue.Dequeue<RelayEvent>, never, Scope.Scope>
  /** A rule after those there: it decides for the datagrams that no earlier rule takes. */
  readonly add: (rule: Rule) => Effect.Effect<RuleHandle>
}

/** A client's own socket toward the server, and what waits for it to be open. */
interface Upstream {
  socket: BoundSocket | undefined
  scope: Scope.CloseableScope | undefined
  readonly waiting: Array<Uint8Array>
  lastActive: number
}

/** Closes, every so often, the upstream sockets of clients silent either way for `idleMs`. */
const closeIdleEvery = (idleMs: number, upstream: Map<string, Upstream>, elapsed: () => number) => {
  const closeIdle = Effect.suspend(() => {
    const now = elapsed()
    const idle = [...upstream].filter(([, entry]) => entry.socket !== undefined && now - entry.lastActive >= idleMs)
    for (const [key] of idle) upstream.delete(key)
    return Effect.forEach(idle, ([, entry]) => Scope.close(entry.scope!, Exit.void), { discard: true })
  })
  return closeIdle.pipe(Effect.repeat(Schedule.spaced(Duration.millis(Math.max(50, idleMs / 4)))), Effect.forkScoped)
}

export const makeRelay = (options: RelayOptions): Effect.Effect<Relay, UdpError, Udp | Scope.Scope> =>
  Effect.gen(function*() {
    const udp = yield* Udp
    const scope = yield* Effect.scope
    const elapsed = elapsedFrom(yield* Effect.clock)
    const events = yield* Effect.acquireRelease(PubSub.unbounded<RelayEvent>(), PubSub.shutdown)
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    const listenHost = options.listen?.host ?? "127.0.0.1"
    const listener = yield* udp.open({ host: listenHost, port: options.listen?.port ?? 0 })
    const server: Endpoint = { address: options.server.host, port: options.server.port }

    const rules: Array<ActiveRule> = []
    /** Per client ("address:port"): its socket toward the server. */
    const upstream = new Map<string, Upstream>()
    const clients = new Map<string, Client>()
    /** Per direction and client: a datagram waiting for the next one to pass it. */
    const reordering = new Map<string, { readonly packet: Packet; readonly rule: string }>()
    const seen: Record<Direction, number> = { up: 0, down: 0 }
    let rulesAdded = 0
    let clientsSeen = 0
    let published = 0

    const publish = (kind: RelayEventKind, packet: Packet, rule: string | undefined, extra: Partial<Pick<RelayEvent, "copies" | "ms" | "sent">> = {}) =>
      void events.unsafeOffer({
        index: published++,
        kind,
        dir: packet.dir,
        client: packet.client,
        clientNumber: clients.get(packet.client)?.number ?? 0,
        text: packet.text,
        bytes: packet.bytes,
        seq: packet.seq,
        at: elapsed(),
        rule,
        copies: extra.copies,
        ms: extra.ms,
        sent: extra.sent
      })

    /**
     * The client's own socket toward the server, opened on first use. Datagrams sent while
     * it opens wait in order and go as soon as it is bound.
     */
    const upstreamFor = (key: string, clientAt: Endpoint): Upstream => {
      const existing = upstream.get(key)
      if (existing) return existing
      const entry: Upstream = { socket: undefined, scope: undefined, waiting: [], lastActive: elapsed() }
      upstream.set(key, entry)
      run(Effect.gen(function*() {
        const own = yield* Scope.fork(scope, ExecutionStrategy.sequential)
        entry.scope = own
        const socket = yield* udp.open({ host: options.upstreamHost ?? "127.0.0.1" }).pipe(
          Scope.extend(own)
        )
        // Only the server's replies belong to this client.
        yield* socket.onDatagram((datagram) => {
          if (datagram.port === server.port) receive("down", clientAt, datagram.data)
        }).pipe(Scope.extend(own))
        entry.socket = socket
        for (const bytes of entry.waiting.splice(0)) socket.sendNow(bytes, server)
      }).pipe(
        Effect.catchAll((error) =>
          Effect.sync(() => upstream.get(key) === entry && upstream.delete(key)).pipe(
            Effect.zipRight(Effect.logWarning(`relay: no socket toward the server for ${key}: ${error.message}`))
          )
        )
      ))
      return entry
    }

    const deliver = (dir: Direction, key: string, clientAt: Endpoint, bytes: Uint8Array) => {
      if (dir === "down") {
        const entry = upstream.get(key)
        if (entry) entry.lastActive = elapsed()
        return listener.sendNow(bytes, clientAt)
      }
      const entry = upstreamFor(key, clientAt)
      entry.lastActive = elapsed()
      if (entry.socket) entry.socket.sendNow(bytes, server)
      else entry.waiting.push(bytes)
    }

    /** Sends `packet` on; a datagram waiting to be overtaken goes right after the one that overtook it. */
    const transmit = (packet: Packet, bytes: ReadonlyArray<Uint8Array> = [packet.bytes]) => {
      for (const each of bytes) deliver(packet.dir, packet.client, packet.clientAt, each)
      const key = `${packet.dir} ${packet.client}`
      if (bytes.length > 0 && reordering.get(key)?.packet !== packet) releaseReordered(key)
    }

    const sendLate = (packet: Packet, rule: string) => {
      publish("release", packet, rule)
      transmit(packet)
    }

    const releaseReordered = (key: string) => {
      const waiting = reordering.get(key)
      if (waiting === undefined) return
      reordering.delete(key)
      sendLate(waiting.packet, waiting.rule)
    }

    const later = (ms: number, then: () => void) => void run(Effect.sleep(Duration.millis(ms)).pipe(Effect.zipRight(Effect.sync(then))))

    const acting: Acting = { publish, transmit, deliver, sendLate, later, reordering, releaseReordered }

    /** `clientAt` is the sender for "up", the addressee for "down". */
    const receive = (dir: Direction, clientAt: Endpoint, bytes: Uint8Array) => {
      const key = `${clientAt.address}:${clientAt.port}`
      let client = clients.get(key)
      if (client === undefined) {
        if (clients.size >= 65536) clients.clear()
        clients.set(key, client = { number: ++clientsSeen, fromClient: 0, fromServer: 0 })
      }
      if (dir === "up") client.fromClient++
      else client.fromServer++
      const packet: Packet = { dir, client: key, clientAt, text: latin1(bytes), seq: seen[dir]++, bytes }
      if (dir === "up" && !upstream.has(key) && upstream.size >= (options.maxClients ?? 1024)) {
        return publish("drop", packet, "too many clients")
      }
      // The first rule that both matches and selects this occurrence decides; later rules never see it.
      for (const rule of [...rules]) {
        if (!rule.dirs.has(dir) || !rule.matches(packet.text, packet)) continue
        rule.matched++
        if (!rule.selects(rule.matched)) continue
        rule.fired++
        return applyRule(acting, rule, packet, client)
      }
      publish("forward", packet, undefined)
      transmit(packet)
    }

    const add = (rule: Rule): RuleHandle => {
      const active = activate(rule, ++rulesAdded, options.seed ?? 0)
      rules.push(active)
      return handleOf(active, rules, sendLate)
    }
    for (const rule of options.rules ?? []) add(rule)

    if (options.idleMs !== undefined) yield* closeIdleEvery(options.idleMs, upstream, elapsed)

    yield* listener.onDatagram((datagram) => receive("up", { address: datagram.address, port: datagram.port }, datagram.data))
    return {
      port: listener.local.port,
      subscribe: PubSub.subscribe(events),
      add: (rule) => Effect.sync(() => add(rule))
    }
  })
