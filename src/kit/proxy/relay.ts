/**
 * A UDP relay with seeded faults, on real sockets: it sits between clients and a server and
 * can drop, duplicate, delay, reorder or hold chosen datagrams. `nuggets proxy` is made of
 * it, and so is the fault injector the network tests use.
 *
 * Clients send to `relay.port` instead of the server's port; neither side knows the relay is
 * there. For each client address the relay opens its own upstream socket, so the server sees
 * one distinct address per client and its replies find their way back to the right client.
 * Plain callbacks and Promises (the work happens in socket callbacks); `relayResource`
 * makes one a scoped resource.
 *
 * Longer than most files (about 400 lines): the relay is one closure over its sockets, its
 * clients and its rules; its rules and its event log live beside it (relay-rules.ts,
 * relay-events.ts).
 */
import { Effect, type Scope } from "effect"
import * as dgram from "node:dgram"
import {
  type Action,
  type Direction,
  HoldHandle,
  matcherOf,
  mulberry32,
  type Packet,
  RuleHandle,
  ruleSeed,
  type RuleSpec,
  selectorOf
} from "./relay-rules.js"

import { type DirectionCounters, EventLog, newCounters, type RelayEvent, type RelayEventKind } from "./relay-events.js"

export * from "./relay-events.js"
export * from "./relay-rules.js"

export interface RelayOptions {
  /** The real server. */
  readonly server: { readonly host: string; readonly port: number }
  /** Where clients send: 127.0.0.1 and a free port unless given. */
  readonly listen?: { readonly host?: string; readonly port?: number }
  /** The address the upstream sockets bind to (127.0.0.1 unless given). */
  readonly upstreamHost?: string
  /** Seeds every rule's PRNG (each rule derives its own from this and its number). Default 0. */
  readonly seed?: number
  /** Keep every event in `events` (the default); a long-running relay uses `onEvent` instead. */
  readonly keepEvents?: boolean
  /** A client with no traffic either way for this long loses its upstream socket. Default: never. */
  readonly idleMs?: number
  /** At most this many clients at once; datagrams from more are dropped. Default 1024. */
  readonly maxClients?: number
  /** Milliseconds on a steady clock; `performance.now` unless given. */
  readonly now?: () => number
}

interface Upstream {
  readonly socket: dgram.Socket
  port: number | undefined
  lastActive: number
}

const familyOf = (host: string) => (host.includes(":") ? "udp6" : "udp4")

const bind = (socket: dgram.Socket, host: string, port: number) =>
  new Promise<void>((resolve, reject) => {
    socket.once("error", reject)
    socket.bind(port, host, () => {
      socket.off("error", reject)
      resolve()
    })
  })

const closeSocket = (socket: dgram.Socket) =>
  new Promise<void>((resolve) => {
    try {
      socket.close(() => resolve())
    } catch {
      resolve() // already closed
    }
  })

export class UdpRelay {
  readonly host: string
  readonly counters: Record<Direction, DirectionCounters> = { up: newCounters(), down: newCounters() }
  /** Socket errors, kept rather than thrown: a test asserts on traffic, not on these. */
  readonly errors: Array<Error> = []

  private readonly rules: Array<RuleHandle> = []
  private readonly holds = new Set<HoldHandle>()
  /** Per client ("address:port"): its socket toward the server. */
  private readonly upstream = new Map<string, Upstream>()
  /** Per direction and client: a datagram waiting for the next one to pass it. */
  private readonly reordering = new Map<string, { readonly packet: Packet; readonly rule: string; readonly timer: NodeJS.Timeout }>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly log_: EventLog
  private readonly startedAt: number
  private readonly now: () => number
  /** Clients numbered in order of their first datagram. */
  private readonly clientNumbers = new Map<string, number>()
  private rulesCreated = 0
  private clientsSeen = 0
  private sweeper: NodeJS.Timeout | undefined
  private closing: Promise<void> | undefined

  /** The port clients send to (still known after `close()`). */
  readonly port: number

  private constructor(private readonly listener: dgram.Socket, private readonly options: RelayOptions) {
    this.host = options.listen?.host ?? "127.0.0.1"
    this.port = listener.address().port
    this.now = options.now ?? (() => performance.now())
    this.log_ = new EventLog(options.keepEvents !== false)
    this.startedAt = this.now()
    listener.on("error", (error) => this.errors.push(error))
    listener.on("message", (bytes, from) => this.receive("up", { address: from.address, port: from.port }, bytes))
    const idle = options.idleMs
    if (idle !== undefined) {
      this.sweeper = setInterval(() => this.closeIdle(idle), Math.max(50, idle / 4))
      this.sweeper.unref()
    }
  }

  static async start(options: RelayOptions): Promise<UdpRelay> {
    const host = options.listen?.host ?? "127.0.0.1"
    const listener = dgram.createSocket(familyOf(host))
    try {
      await bind(listener, host, options.listen?.port ?? 0)
    } catch (error) {
      await closeSocket(listener)
      throw error
    }
    return new UdpRelay(listener, options)
  }

  /**
   * For each client ("address:port"), the port of its upstream socket: the client's address as
   * the server sees it. Listed once bound (before the first datagram reaches the server).
   */
  get upstreamPorts(): ReadonlyMap<string, number> {
    const ports = new Map<string, number>()
    for (const [client, { port }] of this.upstream) if (port !== undefined) ports.set(client, port)
    return ports
  }

  /** Delayed, reordered and held datagrams not yet sent. */
  get pending(): number {
    let held = 0
    for (const hold of this.holds) held += hold.waiting.length
    return this.timers.size + held
  }

  /** Clients with an upstream socket now. */
  get clients(): number {
    return this.upstream.size
  }

  get closed(): boolean {
    return this.closing !== undefined
  }

  addRule(spec: RuleSpec, action: { readonly kind: "hold" }): HoldHandle
  addRule(spec: RuleSpec, action: Action): RuleHandle
  addRule(spec: RuleSpec, action: Action): RuleHandle {
    const number = ++this.rulesCreated
    const label = spec.label ?? `${action.kind}#${number}`
    const dir = spec.dir ?? "both"
    const dirs = new Set<Direction>(dir === "both" ? ["up", "down"] : [dir])
    const random = mulberry32(spec.seed ?? ruleSeed(this.options.seed ?? 0, number))
    const parts: ConstructorParameters<typeof RuleHandle> = [
      label,
      action,
      dirs,
      matcherOf(spec.match),
      selectorOf(spec.when ?? "all", random),
      random,
      (rule) => {
        const at = this.rules.indexOf(rule)
        if (at >= 0) this.rules.splice(at, 1)
      }
    ]
    const rule = action.kind === "hold" ? new HoldHandle(parts, (packet, by) => this.sendLate(packet, by)) : new RuleHandle(...parts)
    if (rule instanceof HoldHandle) this.holds.add(rule)
    this.rules.push(rule)
    return rule
  }

  drop(spec: RuleSpec = {}): RuleHandle {
    return this.addRule(spec, { kind: "drop" })
  }

  /** Sends each chosen datagram, then `copies` (default 1) more of it. */
  duplicate(spec: RuleSpec & { readonly copies?: number } = {}): RuleHandle {
    return this.addRule(spec, { kind: "duplicate", copies: spec.copies ?? 1 })
  }

  /** Delays each chosen datagram by `ms`, or by a time drawn from `ms`..`maxMs`. */
  delay(spec: RuleSpec & { readonly ms: number; readonly maxMs?: number }): RuleHandle {
    return this.addRule(spec, spec.maxMs === undefined ? { kind: "delay", ms: spec.ms } : { kind: "delay", ms: spec.ms, maxMs: spec.maxMs })
  }

  /** Lets the next datagram (same direction, same client) overtake each chosen one. */
  reorder(spec: RuleSpec & { readonly maxWaitMs?: number } = {}): RuleHandle {
    return this.addRule(spec, { kind: "reorder", maxWaitMs: spec.maxWaitMs ?? 200 })
  }

  hold(spec: RuleSpec = {}): HoldHandle {
    return this.addRule(spec, { kind: "hold" })
  }

  /** Removes every rule; held datagrams stay releasable through their handles. */
  clearRules(): void {
    this.rules.length = 0
  }

  /** Every event so far, in order (unless `keepEvents` is false). */
  get events(): ReadonlyArray<RelayEvent> {
    return this.log_.events
  }

  /** Calls `listener` with every event from now on; returns the way to stop. */
  onEvent(listener: (event: RelayEvent) => void): () => void {
    return this.log_.onEvent(listener)
  }

  /** The first event logged from now on that satisfies `predicate`; rejects after `timeoutMs`. */
  next(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what = "a matching event"): Promise<RelayEvent> {
    if (this.closed) return Promise.reject(new Error(`relay: closed while waiting for ${what}`))
    return this.log_.next(predicate, timeoutMs, what)
  }

  /** Like `next`, but an event already in the log counts too. */
  waitFor(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what = "a matching event"): Promise<RelayEvent> {
    return this.log_.waitFor(predicate, timeoutMs, what)
  }

  /** Closes every socket, cancels delayed sends, discards held datagrams, rejects waiters. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.sweeper) clearInterval(this.sweeper)
      for (const timer of this.timers) clearTimeout(timer)
      this.timers.clear()
      this.reordering.clear()
      for (const hold of this.holds) hold.waiting.length = 0
      this.rules.length = 0
      this.log_.rejectAll(new Error("relay: closed while waiting for an event"))
      await Promise.all([this.listener, ...[...this.upstream.values()].map((u) => u.socket)].map(closeSocket))
    })()
    return this.closing
  }

  /** `client` is the sender for "up", the addressee for "down". */
  private receive(dir: Direction, client: Packet["clientAt"], bytes: Buffer) {
    if (this.closed) return
    const key = `${client.address}:${client.port}`
    const packet: Packet = { dir, client: key, clientAt: client, text: bytes.toString("utf8"), seq: this.counters[dir].seen++, bytes }
    if (!this.clientNumbers.has(key)) {
      if (this.clientNumbers.size >= 65536) this.clientNumbers.clear()
      this.clientNumbers.set(key, ++this.clientsSeen)
    }
    if (dir === "up" && !this.upstream.has(key) && this.upstream.size >= (this.options.maxClients ?? 1024)) {
      this.counters.up.dropped++
      return this.log("drop", packet, "too many clients")
    }
    // The first rule that both matches and selects this occurrence decides; later rules never see it.
    for (const rule of [...this.rules]) {
      if (!rule.dirs.has(dir) || !rule.matches(packet.text, packet)) continue
      rule.matched++
      if (!rule.selects(rule.matched)) continue
      rule.fired++
      this.apply(rule, packet)
      return
    }
    this.log("forward", packet, undefined)
    this.transmit(packet)
  }

  private apply(rule: RuleHandle, packet: Packet) {
    const counters = this.counters[packet.dir]
    const action = rule.action
    switch (action.kind) {
      case "drop":
        counters.dropped++
        this.log("drop", packet, rule.label)
        return
      case "duplicate":
        counters.duplicated += action.copies
        this.log("duplicate", packet, rule.label, { copies: action.copies })
        for (let i = 0; i <= action.copies; i++) this.transmit(packet)
        return
      case "delay": {
        const ms = action.maxMs === undefined ? action.ms : action.ms + Math.floor(rule.random() * (action.maxMs - action.ms + 1))
        counters.delayed++
        this.log("delay", packet, rule.label, { ms })
        this.later(ms, () => this.sendLate(packet, rule.label))
        return
      }
      case "reorder": {
        const key = `${packet.dir} ${packet.client}`
        // One datagram waits at a time: a second one chosen meanwhile simply passes it.
        if (this.reordering.has(key)) {
          this.log("forward", packet, undefined)
          return this.transmit(packet)
        }
        counters.reordered++
        this.log("reorder", packet, rule.label)
        const timer = this.later(action.maxWaitMs, () => this.releaseReordered(key))
        this.reordering.set(key, { packet, rule: rule.label, timer })
        return
      }
      case "hold":
        counters.held++
        this.log("hold", packet, rule.label)
        if (rule instanceof HoldHandle) rule.waiting.push(packet)
        return
    }
  }

  private later(ms: number, then: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      then()
    }, ms)
    this.timers.add(timer)
    return timer
  }

  private releaseReordered(key: string) {
    const waiting = this.reordering.get(key)
    if (waiting === undefined) return
    this.reordering.delete(key)
    clearTimeout(waiting.timer)
    this.timers.delete(waiting.timer)
    this.sendLate(waiting.packet, waiting.rule)
  }

  private sendLate(packet: Packet, rule: string) {
    if (this.closed) return
    this.log("release", packet, rule)
    this.transmit(packet)
  }

  private transmit(packet: Packet) {
    this.counters[packet.dir].forwarded++
    if (packet.dir === "up") {
      const upstream = this.upstreamFor(packet.client, packet.clientAt)
      upstream.lastActive = this.now()
      upstream.socket.send(packet.bytes, this.options.server.port, this.options.server.host)
    } else {
      const upstream = this.upstream.get(packet.client)
      if (upstream) upstream.lastActive = this.now()
      this.listener.send(packet.bytes, packet.clientAt.port, packet.clientAt.address)
    }
    // A datagram waiting to be overtaken goes right after the one that overtook it.
    const key = `${packet.dir} ${packet.client}`
    if (this.reordering.get(key)?.packet !== packet) this.releaseReordered(key)
  }

  /**
   * The client's own socket toward the server, opened on first use. Sends made while it is
   * still binding are queued by node:dgram in order, so no datagram waits on an await here.
   */
  private upstreamFor(client: string, clientAddress: Packet["clientAt"]): Upstream {
    const existing = this.upstream.get(client)
    if (existing) return existing
    const socket = dgram.createSocket(familyOf(this.options.server.host))
    const entry: Upstream = { socket, port: undefined, lastActive: this.now() }
    socket.on("error", (error) => this.errors.push(error))
    socket.on("message", (bytes, from) => {
      // Only the server's replies belong to this client.
      if (from.port === this.options.server.port) this.receive("down", clientAddress, bytes)
    })
    socket.bind(0, this.options.upstreamHost ?? "127.0.0.1", () => {
      entry.port = socket.address().port
    })
    this.upstream.set(client, entry)
    return entry
  }

  private closeIdle(idleMs: number) {
    const now = this.now()
    for (const [client, entry] of this.upstream) {
      if (now - entry.lastActive < idleMs) continue
      this.upstream.delete(client)
      void closeSocket(entry.socket)
    }
  }

  private log(kind: RelayEventKind, packet: Packet, rule: string | undefined, extra: { copies?: number; ms?: number } = {}) {
    this.log_.add({
      kind,
      dir: packet.dir,
      client: packet.client,
      clientNumber: this.clientNumbers.get(packet.client) ?? 0,
      text: packet.text,
      bytes: packet.bytes,
      seq: packet.seq,
      at: this.now() - this.startedAt,
      rule,
      copies: extra.copies,
      ms: extra.ms
    })
  }
}

export const startRelay = (options: RelayOptions): Promise<UdpRelay> => UdpRelay.start(options)

/** The relay as a scoped resource: closed when the scope closes. */
export const relayResource = (options: RelayOptions): Effect.Effect<UdpRelay, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startRelay(options)),
    (relay) => Effect.promise(() => relay.close())
  )
