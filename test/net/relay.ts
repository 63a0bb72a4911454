/**
 * A deterministic UDP fault injector for tests: a relay on real loopback sockets that sits
 * between clients and a server and can drop, duplicate, delay or hold chosen datagrams.
 *
 * Clients send to `relay.port` instead of the server's port; neither side knows the relay is
 * there. For each client address the relay opens its own upstream socket, so the server sees
 * one distinct address per client and its replies find their way back to the right client.
 *
 * Which datagrams suffer which fault is decided by rules (see `RuleSpec`). Random choices come
 * from a seeded PRNG per rule, so the same seed and the same traffic give the same faults.
 * Plain Promises throughout, so any test can use it; `relayResource` wraps it for Effect.
 */
import { Effect, type Scope } from "effect"
import * as dgram from "node:dgram"

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
  /** Sends it after `ms` (a real timer), so datagrams behind it overtake it. */
  | { readonly kind: "delay"; readonly ms: number }
  /** Keeps it until the rule's `release` is called: reordering by hand. */
  | { readonly kind: "hold" }

/**
 * What the relay did. Each datagram it receives logs exactly one of "forward", "drop",
 * "duplicate", "delay" or "hold"; a delayed or held datagram logs "release" when finally sent.
 */
export type RelayEventKind = Action["kind"] | "forward" | "release"

export interface RelayEvent {
  /** Position in `relay.events`. */
  readonly index: number
  readonly kind: RelayEventKind
  readonly dir: Direction
  readonly client: string
  readonly text: string
  readonly seq: number
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
  /** Datagrams sent on, counting every copy and late (delayed or held) sends. */
  forwarded: number
  dropped: number
  /** Extra copies sent (not counting the original). */
  duplicated: number
  delayed: number
  held: number
}

export interface RelayOptions {
  /** The real server, on loopback in practice. */
  readonly server: { readonly host: string; readonly port: number }
  /** Seeds every rule's PRNG (each rule derives its own from this and its number). Default 0. */
  readonly seed?: number
}

/** mulberry32: a tiny, fast 32-bit PRNG, enough for choosing faults reproducibly. */
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
const ruleSeed = (relaySeed: number, ruleNumber: number) =>
  Math.imul((relaySeed >>> 0) ^ Math.imul(ruleNumber, 0x9e3779b9), 0x85ebca6b) >>> 0

const matcherOf = (match: Match | undefined): ((text: string, info: DatagramInfo) => boolean) => {
  if (match === undefined) return () => true
  if (typeof match === "string") return (text) => text.startsWith(match)
  if (match instanceof RegExp) {
    const pattern = new RegExp(match.source, match.flags.replace(/[gy]/g, "")) // stateless: no lastIndex
    return (text) => pattern.test(text)
  }
  return match
}

/** Decides, for the n-th match (from 1), whether the rule acts. */
const selectorOf = (when: Occurrences, random: () => number): ((n: number) => boolean) => {
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

interface Waiter {
  readonly predicate: (event: RelayEvent) => boolean
  readonly resolve: (event: RelayEvent) => void
  readonly reject: (error: Error) => void
  readonly timer: NodeJS.Timeout
}

const describeEvent = (e: RelayEvent) => `${e.kind} ${e.dir} ${JSON.stringify(e.text.slice(0, 40))}`

const bindLoopback = (socket: dgram.Socket) =>
  new Promise<void>((resolve, reject) => {
    socket.once("error", reject)
    socket.bind(0, "127.0.0.1", () => {
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
  readonly host = "127.0.0.1"
  /** Every event so far, in order. */
  readonly events: Array<RelayEvent> = []
  readonly counters: Record<Direction, DirectionCounters> = {
    up: { seen: 0, forwarded: 0, dropped: 0, duplicated: 0, delayed: 0, held: 0 },
    down: { seen: 0, forwarded: 0, dropped: 0, duplicated: 0, delayed: 0, held: 0 }
  }
  /** Socket errors, kept rather than thrown: a test asserts on traffic, not on these. */
  readonly errors: Array<Error> = []

  private readonly rules: Array<RuleHandle> = []
  private readonly holds = new Set<HoldHandle>()
  /** Per client ("address:port"): its socket toward the server, and that socket's port once bound. */
  private readonly upstream = new Map<string, { readonly socket: dgram.Socket; port: number | undefined }>()
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly waiters = new Set<Waiter>()
  private rulesCreated = 0
  private closing: Promise<void> | undefined

  /** The port clients send to (still known after `close()`). */
  readonly port: number

  private constructor(
    private readonly listener: dgram.Socket,
    private readonly server: RelayOptions["server"],
    private readonly seed: number
  ) {
    this.port = listener.address().port
    listener.on("error", (error) => this.errors.push(error))
    listener.on("message", (bytes, from) => this.receive("up", { address: from.address, port: from.port }, bytes))
  }

  static async start(options: RelayOptions): Promise<UdpRelay> {
    const listener = dgram.createSocket("udp4")
    await bindLoopback(listener)
    return new UdpRelay(listener, options.server, options.seed ?? 0)
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

  /** Delayed and held datagrams not yet sent. */
  get pending(): number {
    let held = 0
    for (const hold of this.holds) held += hold.waiting.length
    return this.timers.size + held
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
    const random = mulberry32(spec.seed ?? ruleSeed(this.seed, number))
    const parts: ConstructorParameters<typeof RuleHandle> = [
      label,
      action,
      dirs,
      matcherOf(spec.match),
      selectorOf(spec.when ?? "all", random),
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

  delay(spec: RuleSpec & { readonly ms: number }): RuleHandle {
    return this.addRule(spec, { kind: "delay", ms: spec.ms })
  }

  hold(spec: RuleSpec = {}): HoldHandle {
    return this.addRule(spec, { kind: "hold" })
  }

  /** Removes every rule; held datagrams stay releasable through their handles. */
  clearRules(): void {
    this.rules.length = 0
  }

  /** The first event logged from now on that satisfies `predicate`; rejects after `timeoutMs`. */
  next(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what = "a matching event"): Promise<RelayEvent> {
    if (this.closed) return Promise.reject(new Error(`relay: closed while waiting for ${what}`))
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

  /** Like `next`, but an event already in the log counts too. */
  waitFor(predicate: (event: RelayEvent) => boolean, timeoutMs: number, what = "a matching event"): Promise<RelayEvent> {
    const logged = this.events.find(predicate)
    return logged !== undefined ? Promise.resolve(logged) : this.next(predicate, timeoutMs, what)
  }

  /** Closes every socket, cancels delayed sends, discards held datagrams, rejects waiters. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearTimeout(timer)
      this.timers.clear()
      for (const hold of this.holds) hold.waiting.length = 0
      this.rules.length = 0
      for (const waiter of [...this.waiters]) waiter.reject(new Error("relay: closed while waiting for an event"))
      await Promise.all([this.listener, ...[...this.upstream.values()].map((u) => u.socket)].map(closeSocket))
    })()
    return this.closing
  }

  private dismiss(waiter: Waiter) {
    clearTimeout(waiter.timer)
    this.waiters.delete(waiter)
  }

  /** `client` is the sender for "up", the addressee for "down". */
  private receive(dir: Direction, client: Packet["clientAt"], bytes: Buffer) {
    if (this.closed) return
    const packet: Packet = {
      dir,
      client: `${client.address}:${client.port}`,
      clientAt: client,
      text: bytes.toString("utf8"),
      seq: this.counters[dir].seen++,
      bytes
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
        counters.delayed++
        this.log("delay", packet, rule.label, { ms: action.ms })
        const timer = setTimeout(() => {
          this.timers.delete(timer)
          this.sendLate(packet, rule.label)
        }, action.ms)
        this.timers.add(timer)
        return
      }
      case "hold":
        counters.held++
        this.log("hold", packet, rule.label)
        if (rule instanceof HoldHandle) rule.waiting.push(packet)
        return
    }
  }

  private sendLate(packet: Packet, rule: string) {
    if (this.closed) return
    this.log("release", packet, rule)
    this.transmit(packet)
  }

  private transmit(packet: Packet) {
    this.counters[packet.dir].forwarded++
    if (packet.dir === "up") {
      this.upstreamFor(packet.client, packet.clientAt).send(packet.bytes, this.server.port, this.server.host)
    } else {
      this.listener.send(packet.bytes, packet.clientAt.port, packet.clientAt.address)
    }
  }

  /**
   * The client's own socket toward the server, opened on first use. Sends made while it is
   * still binding are queued by node:dgram in order, so no datagram waits on an await here.
   */
  private upstreamFor(client: string, clientAddress: Packet["clientAt"]): dgram.Socket {
    const existing = this.upstream.get(client)
    if (existing) return existing.socket
    const socket = dgram.createSocket("udp4")
    const entry: { readonly socket: dgram.Socket; port: number | undefined } = { socket, port: undefined }
    socket.on("error", (error) => this.errors.push(error))
    socket.on("message", (bytes, from) => {
      // Only the server's replies belong to this client.
      if (from.port === this.server.port) this.receive("down", clientAddress, bytes)
    })
    socket.bind(0, "127.0.0.1", () => {
      entry.port = socket.address().port
    })
    this.upstream.set(client, entry)
    return socket
  }

  private log(kind: RelayEventKind, packet: Packet, rule: string | undefined, extra: { copies?: number; ms?: number } = {}) {
    const event: RelayEvent = {
      index: this.events.length,
      kind,
      dir: packet.dir,
      client: packet.client,
      text: packet.text,
      seq: packet.seq,
      rule,
      copies: extra.copies,
      ms: extra.ms
    }
    this.events.push(event)
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
}

export const startRelay = (options: RelayOptions): Promise<UdpRelay> => UdpRelay.start(options)

/** The relay as a scoped resource (for `it.scoped`/`it.scopedLive`): closed when the scope closes. */
export const relayResource = (options: RelayOptions): Effect.Effect<UdpRelay, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => startRelay(options)),
    (relay) => Effect.promise(() => relay.close())
  )
