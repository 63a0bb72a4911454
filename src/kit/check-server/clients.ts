import { Effect, Scope } from "effect"
import { type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import { type GameReport, newReport, readDatagram, type Role } from "../../protocol/reader.js"
import { stop, Stop } from "../conformance/check.js"
import type { Failure } from "../conformance/failure.js"
import { type Conversation, heard, lintServerMessage, newConversation } from "../conformance/lint.js"
import { type Requirement, Requirements } from "../conformance/requirements.js"
import type { Silence } from "../../net/inbox.js"
import { type Arrival, openProbe, type Probe } from "./probe.js"
import type { Traffic } from "./traffic.js"

/**
 * The checker's clients on the server under check, each a probe (its own socket) and what
 * the server has told it, read by the same reader as our client. The run owns them: they
 * are opened in its scope and closed when it ends. Who watches the game is not set by any
 * check but follows the protocol: the latest spectator let in (its first DISPLAY came) that
 * has neither quit nor been told to go.
 */

export class Client {
  private told: GameReport
  private conversation: Conversation
  private latestGold: { readonly n: number; readonly p: number; readonly r: number } | undefined
  private over: string | undefined
  private first: ReadonlyArray<string> | undefined
  private askedToQuit = false

  constructor(readonly probe: Probe, readonly role: Role, readonly name: string) {
    this.told = newReport(role)
    this.conversation = { ...newConversation, role }
  }

  /** What the server has told it, as our client reads it. */
  get report(): GameReport {
    return this.told
  }

  /** The latest GOLD it got. */
  get gold() {
    return this.latestGold
  }

  /** The game over as it came: GAMEOVER or QUIT GAME OVER:. */
  get gameOver(): string | undefined {
    return this.over
  }

  /** Its first view of the game. */
  get firstView(): ReadonlyArray<string> | undefined {
    return this.first
  }

  /** It asked to quit (sent Q). */
  get left(): boolean {
    return this.askedToQuit
  }

  /** Sends `message` to the server. */
  send(message: string | Uint8Array): Effect.Effect<void> {
    if (message === "KEY Q") this.askedToQuit = true
    return this.probe.send(message)
  }

  /** Takes in what came; gives what it broke of the spec, and its new view if it changed. */
  hear(arrival: Arrival) {
    const linted = lintServerMessage(this.conversation, arrival.bytes)
    this.conversation = heard(linted.conversation, arrival.bytes, arrival.at)
    const before = this.told.view
    this.told = readDatagram(this.told, arrival.bytes)
    const message = arrival.message
    if (message?._tag === "Gold") this.latestGold = { n: message.collected, p: message.purse, r: message.remaining }
    if (message?._tag === "GameOver") this.over ??= arrival.text
    const newView = this.told.view !== before ? this.told.view : undefined
    this.first ??= newView
    return { flags: linted.flags, newView }
  }
}

/** The silence of `error` as a failure: what was sent, and that nothing (or what) came. */
export const silenceFailure = (error: Silence, what: string, spec: Requirement, sent: string): Failure => ({
  what,
  sent,
  got: error.instead.length === 0 ? `nothing within ${error.ms} ms` : `${error.instead.slice(-4).join(", ")} (and no ${error.what} within ${error.ms} ms)`,
  spec
})

export interface ClientsOptions {
  readonly server: Endpoint
  readonly family: "udp4" | "udp6"
  /** How long to wait for each answer. */
  readonly answerMs: number
}

export class Clients {
  private readonly opened: Array<Client> = []

  constructor(
    readonly options: ClientsOptions,
    private readonly traffic: Traffic,
    private readonly scope: Scope.Scope,
    private readonly udp: Udp["Type"]
  ) {}

  get answerMs() {
    return this.options.answerMs
  }

  /** Every client opened so far, in order. */
  get all(): ReadonlyArray<Client> {
    return this.opened
  }

  /** A new client on its own socket, in the run's scope; it has sent nothing yet. */
  open(role: Role, name = ""): Effect.Effect<Client, UdpError> {
    const label = `${role} ${this.opened.length + 1}`
    let client: Client | undefined
    return openProbe(label, this.options.server, this.options.family, (arrival) => {
      // Nothing arrives before the client has sent anything, so it is there by then.
      if (client) this.arrived(client, arrival)
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
    const { flags, newView } = client.hear(arrival)
    const to = { label: client.probe.label, role: client.role, letter: client.report.letter, newView, watching: client === this.spectator }
    this.traffic.heard(to, arrival, flags)
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

  /** Whether the system told any client that the server's port is closed. */
  anyPortClosed(): boolean {
    return this.opened.some((client) => client.probe.portClosed())
  }

  /**
   * A player that joined: OK, then GRID, GOLD and DISPLAY. Fails the check, with what came
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
      yield* this.until(client, "its first DISPLAY", () => client.report.position !== undefined, Requirements.thenGridAndGold)
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

  /** Where the spectator sees `letter`, once it does: a newcomer's DISPLAY to the spectator may still be on its way. */
  locate(letter: string): Effect.Effect<{ readonly row: number; readonly col: number }, Stop | UdpError> {
    return Effect.gen(this, function*() {
      const spectator = yield* this.watch()
      let seen = this.spectatorSees(letter)
      yield* this.until(spectator, `DISPLAY showing ${letter}`, () => (seen = this.spectatorSees(letter)) !== undefined, Requirements.spectatorView)
      if (seen === undefined) return yield* stop({ what: `the spectator does not show player ${letter}`, spec: Requirements.spectatorView })
      return seen
    })
  }

  /** Where `letter` stands as the spectator sees it. */
  spectatorSees(letter: string): { readonly row: number; readonly col: number } | undefined {
    const view = this.view
    if (!view) return undefined
    for (const [row, line] of view.entries()) {
      const col = line.indexOf(letter)
      if (col !== -1) return { row, col }
    }
    return undefined
  }
}
