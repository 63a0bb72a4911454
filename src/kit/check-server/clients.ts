import { Clock, Effect, Option, Queue, Scope } from "effect"
import type { Silence } from "../../net/inbox.js"
import { type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import type { Position, Role } from "../../protocol/reader.js"
import { stop, Stop } from "../conformance/check.js"
import type { Failure } from "../conformance/failure.js"
import { type Requirement, Requirements } from "../conformance/requirements.js"
import { Client, welcomed } from "./client.js"
import { type Arrival, openProbe } from "./probe.js"
import type { SendLog } from "./sends.js"
import type { Traffic } from "./traffic.js"

/**
 * The checker's clients on one server under check (one game: a server started afresh gets a
 * new set; each client in client.ts). They are opened in the game's scope and closed when
 * it ends. Who watches the game is not set by any check but follows the protocol: the
 * latest spectator let in (its first DISPLAY came) that has neither quit nor been told to go.
 */

/** The silence of `error` as a failure: what was sent, and that nothing (or what) came. */
export const silenceFailure = (error: Silence, what: string, spec: Requirement, sent: string): Failure => ({
  what,
  sent,
  got: error.instead.length === 0 ? `nothing within ${error.ms} ms` : `${error.instead.slice(-4).join(", ")} (and no ${error.what} within ${error.ms} ms)`,
  spec
})

/** A player the spectator did not show, with gold or another player drawn where it stands. */
export interface DrawnOver {
  readonly letter: string
  readonly at: Position
  /** What the spectator showed there. */
  readonly shown: string
  /** The spectator's row, for the report. */
  readonly row: string
}

export interface ClientsOptions {
  readonly server: Endpoint
  /** How long to wait for each answer. */
  readonly answerMs: number
}

export class Clients {
  private readonly opened: Array<Client> = []
  /** The first datagram the system answered "port unreachable" for, by its place in the send log. */
  private refusedSeq: number | undefined
  private lastSeq: Map<string, number> = new Map()

  private constructor(
    readonly options: ClientsOptions,
    private readonly traffic: Traffic,
    private readonly sends: SendLog,
    private readonly scope: Scope.Scope,
    private readonly udp: Udp["Type"],
    private readonly clock: Clock.Clock,
    /** A wake for each datagram that comes, to any client: what `quiet` listens to. */
    private readonly arrivals: Queue.Queue<void>
  ) {}

  static make(options: ClientsOptions, traffic: Traffic, sends: SendLog, scope: Scope.Scope): Effect.Effect<Clients, never, Udp> {
    return Effect.gen(function*() {
      return new Clients(options, traffic, sends, scope, yield* Udp, yield* Effect.clock, yield* Queue.sliding<void>(1))
    })
  }

  get answerMs() {
    return this.options.answerMs
  }

  /** Every client opened so far, in order. */
  get all(): ReadonlyArray<Client> {
    return this.opened
  }

  /** A new client on its own socket, in the game's scope; it has sent nothing yet. */
  open(role: Role, name = ""): Effect.Effect<Client, UdpError> {
    const label = `${role} ${this.opened.length + 1}`
    let client: Client | undefined
    return openProbe(label, this.options.server, {
      // Nothing arrives before the client has sent anything, so it is there by then.
      onArrival: (arrival) => void (client && this.arrived(client, arrival)),
      onSend: (bytes) => {
        const sent = this.sends.record(this.clock.unsafeCurrentTimeMillis(), label, client?.who ?? "a client that never joined", bytes)
        this.lastSeq.set(label, sent.seq)
      },
      // The datagram that drew it is the client's last one.
      onPortClosed: () => {
        const seq = this.lastSeq.get(label)
        if (seq !== undefined) this.refusedSeq = Math.min(this.refusedSeq ?? seq, seq)
      }
    }).pipe(
      Scope.extend(this.scope),
      Effect.provideService(Udp, this.udp),
      Effect.map((probe) => {
        client = new Client(probe, role, name)
        this.opened.push(client)
        return client
      })
    )
  }

  private arrived(client: Client, arrival: Arrival) {
    const { flags, moved, newView } = client.hear(arrival)
    Queue.unsafeOffer(this.arrivals, undefined)
    const watching = client === this.spectator
    const seq = this.arrivalCount++
    const first = newView !== undefined && client.firstViewSeq === undefined
    const to = { label: client.probe.label, role: client.role, letter: client.report.letter, newView, watching, first }
    if (newView !== undefined && client.role === "player") {
      client.spectatorThen = this.view
      client.spectatorAfter = undefined
    }
    if (newView !== undefined) client.firstViewSeq ??= seq
    if (moved && client.report.position) client.places.push({ seq, position: client.report.position, spectatorViews: this.spectatorViews })
    if (newView !== undefined && watching) this.spectatorSaw(newView)
    this.traffic.heard(to, arrival, flags)
  }

  /** Datagrams its clients got, so far. */
  private arrivalCount = 0
  /**
   * Spectator views so far. One that comes after a player's own DISPLAY was sent after it, so
   * shows the game as it was then or later: datagrams from one socket to this machine arrive
   * in the order sent.
   */
  private spectatorViews = 0
  private readonly overdrawn = new Map<string, DrawnOver>()

  /** Players that a move left drawn nowhere, neither in their own view nor in the spectator's: the first time for each. */
  readonly unseen = new Map<string, DrawnOver>()

  /** Players the spectator showed with something else drawn where they stand, and themselves nowhere: the first time for each. */
  get drawnOver(): ReadonlyArray<DrawnOver> {
    return [...this.overdrawn.values()]
  }

  private spectatorSaw(view: ReadonlyArray<string>) {
    this.spectatorViews++
    for (const player of this.opened) if (player.role === "player" && player.report.view !== undefined) player.spectatorAfter ??= view
    for (const player of this.activePlayers) {
      const letter = player.report.letter!
      const place = player.places.at(-1)
      if (place === undefined || this.overdrawn.has(letter) || this.spectatorViews < place.spectatorViews + 1) continue
      if (view.some((row) => row.includes(letter))) continue
      const there = view[place.position.row]?.[place.position.col] ?? " "
      if (there === "*" || (there >= "A" && there <= "Z")) this.overdrawn.set(letter, { letter, at: place.position, shown: there, row: view[place.position.row] ?? "" })
    }
  }

  /** The first datagram the system answered "port unreachable" for, if any: the server was gone by then. */
  get refusedAt(): number | undefined {
    return this.refusedSeq
  }

  /**
   * Waits until no datagram has come to any client for `ms` (at most `maxMs` in all): the
   * server has sent what a key made it send. Whether it fell quiet.
   */
  quiet(ms: number, maxMs: number): Effect.Effect<boolean> {
    return Effect.gen(this, function*() {
      const until = (yield* Clock.currentTimeMillis) + maxMs
      yield* Queue.takeAll(this.arrivals)
      for (;;) {
        const woken = yield* Queue.take(this.arrivals).pipe(Effect.timeoutOption(ms))
        if (Option.isNone(woken)) return true
        if ((yield* Clock.currentTimeMillis) > until) return false
      }
    })
  }

  /** The spectator the checks watch the game through, if one is let in. */
  get spectator(): Client | undefined {
    let watching: Client | undefined
    for (const client of this.opened) {
      if (client.role === "spectator" && client.report.view !== undefined && !client.left && !client.report.ending) watching = client
    }
    return watching
  }

  /** The spectator's latest view, if any. */
  get view(): ReadonlyArray<string> | undefined {
    return this.spectator?.report.view
  }

  /** Players that are in the game: they joined and have not left. */
  get activePlayers(): ReadonlyArray<Client> {
    return this.opened.filter((client) => client.role === "player" && client.report.letter !== undefined && !client.left && !client.report.ending)
  }

  /** Players that joined and never left, whether or not the game is over. */
  get playersInGame(): ReadonlyArray<Client> {
    return this.opened.filter((client) => client.role === "player" && client.report.letter !== undefined && !client.left)
  }

  /** Letters the server has handed out to the checker's players. */
  get letters(): ReadonlyArray<string> {
    return this.opened.flatMap((client) => (client.role === "player" && client.report.letter ? [client.report.letter] : []))
  }

  /** Whether any client was told the game is over. */
  get gameEnded(): boolean {
    return this.opened.some((client) => client.gameOver !== undefined)
  }

  /** Whether the system told any client that the server's port is closed. */
  anyPortClosed(): boolean {
    return this.opened.some((client) => client.probe.portClosed())
  }

  /**
   * A player that joined: OK, then GRID, GOLD and a DISPLAY. Fails the check, with what came
   * instead, when the server does not let it in.
   */
  joinPlayer(name: string): Effect.Effect<Client, Stop | UdpError> {
    return Effect.gen(this, function*() {
      const client = yield* this.open("player", name)
      yield* client.send(`PLAY ${name}`)
      yield* client.probe.next("OK", this.answerMs, () => client.report.letter !== undefined || client.report.ending !== undefined).pipe(
        Effect.mapError((error) => new Stop(silenceFailure(error, "the server did not let a new player in", Requirements.ok, client.probe.lastSent())))
      )
      if (client.report.ending) {
        return yield* stop({ what: "the server refused a new player", sent: client.probe.lastSent(), got: client.probe.recent(1).join(""), spec: Requirements.ok })
      }
      // Its view, whether or not it shows the player (a server may draw gold or another player over it).
      yield* this.until(client, "a DISPLAY", () => client.report.view !== undefined, Requirements.display)
      // The rest of its welcome, so that none of it is taken for the answer to what is sent next.
      yield* this.settle(client, () => welcomed(client, ["OK", "GRID", "GOLD", "DISPLAY"]), Math.min(this.answerMs, 500), 150)
      return client
    })
  }

  /** The spectator, joining one if there is none. */
  watch(): Effect.Effect<Client, Stop | UdpError> {
    return Effect.gen(this, function*() {
      const watching = this.spectator
      if (watching) return watching
      const client = yield* this.open("spectator")
      yield* client.send("SPECTATE")
      yield* this.until(client, "GRID and DISPLAY", () => client.report.view !== undefined, Requirements.spectatorGridGold)
      yield* this.settle(client, () => welcomed(client, ["GRID", "GOLD", "DISPLAY"]), Math.min(this.answerMs, 500), 150)
      return client
    })
  }

  /** Waits until `done` holds for `client` (checked as each of its datagrams comes). */
  until(client: Client, what: string, done: () => boolean, spec: Requirement, ms = this.answerMs): Effect.Effect<void, Stop> {
    if (done()) return Effect.void
    return client.probe.next(what, ms, done).pipe(
      Effect.asVoid,
      Effect.mapError((error) => new Stop(silenceFailure(error, `${client.probe.label} got no ${what}`, spec, client.probe.lastSent())))
    )
  }

  /**
   * Waits until `done` holds for `client`, as its datagrams come; once something has come that
   * does not make it hold, only while more follows within `settleMs` (a run's steps, one
   * DISPLAY each): a wrong answer is known soon, not at the deadline. Whether it held.
   */
  settle(client: Client, done: () => boolean, ms: number, settleMs = 250): Effect.Effect<boolean> {
    return Effect.gen(function*() {
      const until = (yield* Clock.currentTimeMillis) + ms
      for (let heard = false; !done();) {
        const left = until - (yield* Clock.currentTimeMillis)
        if (left <= 0) return false
        const got = yield* client.probe.next("a datagram", heard ? Math.min(left, settleMs) : left).pipe(Effect.option)
        if (Option.isNone(got)) return done()
        heard = true
      }
      return true
    })
  }

  /**
   * Where player `client` stands: its own DISPLAY's `@`, else where the spectator shows its
   * letter. The spec asks for no DISPLAY to the spectator when a player joins, so a
   * newcomer's own view is the first word of where it is.
   */
  whereIs(client: Client): Position | undefined {
    return client.report.position ?? (client.report.letter === undefined ? undefined : this.spectatorSees(client.report.letter))
  }

  /** Where `letter` stands as the spectator sees it. */
  spectatorSees(letter: string): Position | undefined {
    const view = this.view
    if (!view) return undefined
    for (const [row, line] of view.entries()) {
      const col = line.indexOf(letter)
      if (col !== -1) return { row, col }
    }
    return undefined
  }
}

