import { Effect, Scope } from "effect"
import type { GameMap } from "../../core/map.js"
import { type Endpoint, Udp, type UdpError } from "../../net/udp.js"
import type { Dialect } from "../../protocol/dialect.js"
import type { Standing } from "../../protocol/summary.js"
import { type GameReport, newReport, readDatagram, type Role } from "../../protocol/reader.js"
import { type Conversation, escaped, type Flag, heard, lintServerMessage, newConversation } from "../conformance/lint.js"
import { type Arrival, openProbe, type Probe, Silence } from "./probe.js"
import type { Failure } from "../conformance/report.js"
import type { SightJudge } from "./sight-judge.js"
import { Spec, type SpecLine } from "../conformance/requirements.js"

/**
 * What `check server` knows while it plays: its clients (each a probe and what it has been
 * told), the dialect the server speaks, and what every datagram so far broke. Checks share
 * one session, so that later checks build on the players earlier ones made.
 */

export interface Client {
  readonly probe: Probe
  readonly role: Role
  /** The name it asked to play under. */
  readonly name: string
  /** What the server has told it, through the same reader as our client. */
  report: GameReport
  conversation: Conversation
  /** It asked to quit, or was told to. */
  left: boolean
  /** The latest GOLD it got. */
  gold: { readonly n: number; readonly p: number; readonly r: number } | undefined
  /** The game over as it came: GAMEOVER or QUIT GAME OVER:. */
  gameOver: string | undefined
}

/** A flag raised by a datagram, with who got it and the datagram itself. */
export interface FlagSeen {
  readonly client: string
  readonly flag: Flag
  readonly datagram: string
}

export interface SessionOptions {
  readonly server: Endpoint
  readonly family: "udp4" | "udp6"
  /** A dialect given on the command line, or undefined to guess it. */
  readonly dialect: Dialect | undefined
  readonly map: GameMap | undefined
  /** How long to wait for each answer. */
  readonly answerMs: number
  /** Judges players' views when a map is given. */
  readonly judge: SightJudge | undefined
}

/** A failure raised inside a check, to stop it. */
export class Stop {
  readonly _tag = "Stop"
  constructor(readonly failure: Failure) {}
}

export const stop = (failure: Failure) => Effect.fail(new Stop(failure))

/** The silence of `error` as a failure: what was sent, and that nothing (or what) came. */
export const silenceFailure = (error: Silence, what: string, spec: SpecLine, sent: string): Failure => ({
  what,
  sent,
  got: error.instead.length === 0 ? `nothing within ${error.ms} ms` : `${error.instead.slice(-4).join(", ")} (and no ${error.what} within ${error.ms} ms)`,
  spec
})

export class Session {
  readonly flags: Array<FlagSeen> = []
  readonly clients: Array<Client> = []
  spectator: Client | undefined
  dialect: Dialect | undefined
  dialectWhy: string
  /** The spectator's first view of the game, before anyone moved: where the piles were dropped. */
  firstSpectatorView: ReadonlyArray<string> | undefined
  /** Nothing ever came back from the server. */
  unreachable = false
  /** Datagrams received from the server, by all clients. */
  received = 0
  /** Nuggets left in the first GOLD anyone got. */
  firstRemaining: number | undefined
  /** The game-over summary, line by line, once the game is over. */
  standings: ReadonlyArray<Standing> | undefined
  private opened = 0

  constructor(readonly options: SessionOptions, private readonly scope: Scope.Scope, private readonly udp: Udp["Type"]) {
    this.dialect = options.dialect
    this.dialectWhy = options.dialect ? "as given" : "not known yet"
  }

  get answerMs() {
    return this.options.answerMs
  }

  /** A new client on its own socket, in the run's scope; it has sent nothing yet. */
  open(role: Role, name = ""): Effect.Effect<Client, UdpError> {
    const label = `${role} ${++this.opened}`
    const client: { -readonly [K in keyof Client]: Client[K] } = {
      probe: undefined as unknown as Probe,
      role,
      name,
      report: newReport(role),
      conversation: { ...newConversation, role },
      left: false,
      gold: undefined,
      gameOver: undefined
    }
    return openProbe(label, this.options.server, this.options.family, (arrival) => this.arrived(client, arrival)).pipe(
      Scope.extend(this.scope),
      Effect.provideService(Udp, this.udp),
      Effect.map((probe) => {
        client.probe = probe
        this.clients.push(client)
        return client
      })
    )
  }

  private arrived(client: Client, arrival: Arrival) {
    this.received++
    const linted = lintServerMessage(client.conversation, arrival.bytes)
    client.conversation = heard(linted.conversation, arrival.bytes, arrival.at)
    for (const flag of linted.flags) this.flags.push({ client: client.probe.label, flag, datagram: escaped(arrival.text) })
    const before = client.report
    client.report = readDatagram(client.report, arrival.bytes)
    const message = arrival.message
    if (message?._tag === "Gold") {
      client.gold = { n: message.collected, p: message.purse, r: message.remaining }
      this.firstRemaining ??= message.remaining
    }
    if (message?._tag === "GameOver") client.gameOver ??= arrival.text
    this.learnDialect(arrival)
    if (client.report.view !== before.view && client.report.view !== undefined) {
      if (client.role === "spectator" && client === this.spectator) {
        this.firstSpectatorView ??= client.report.view
        this.options.judge?.spectatorView(client.report.view)
      } else if (client.role === "player" && client.report.letter !== undefined) {
        this.options.judge?.playerView(client.report.letter, client.report.view)
      }
    }
  }

  /** Messages only one dialect sends tell which the server speaks, when it was not given. */
  private learnDialect({ kind, text }: Arrival) {
    if (kind === "ERROR") this.heardDialect("cs50-2021", `it answered ${escaped(text, 40)}`)
    else if (kind === "NO") this.heardDialect("spec", `it answered ${escaped(text, 40)}`)
    else if (kind === "GAMEOVER") {
      const form = text.startsWith("GAMEOVER") ? "spec" : "cs50-2021"
      this.heardDialect(form, `its game over came as ${form === "spec" ? "GAMEOVER" : "QUIT GAME OVER:"}`)
    }
  }

  heardDialect(dialect: Dialect, why: string) {
    if (this.dialect !== undefined) return
    this.dialect = dialect
    this.dialectWhy = `guessed: ${why}`
  }

  /** The spectator's latest view, if any. */
  get view(): ReadonlyArray<string> | undefined {
    return this.spectator?.report.view
  }

  /** Players that are in the game: they joined and have not left. */
  get activePlayers(): ReadonlyArray<Client> {
    return this.clients.filter((client) => client.role === "player" && client.report.letter !== undefined && !client.left && !client.report.ending)
  }

  /** Players that joined and never left, whether or not the game is over. */
  get playersInGame(): ReadonlyArray<Client> {
    return this.clients.filter((client) => client.role === "player" && client.report.letter !== undefined && !client.left)
  }

  /** Letters the server has handed out to our players. */
  get letters(): ReadonlyArray<string> {
    return this.clients.flatMap((client) => (client.role === "player" && client.report.letter ? [client.report.letter] : []))
  }

  /**
   * A player that joined: OK, then GRID, GOLD and DISPLAY. Fails the check, with what came
   * instead, when the server does not let it in.
   */
  joinPlayer(name: string): Effect.Effect<Client, Stop | UdpError> {
    return Effect.gen(this, function*() {
      const client = yield* this.open("player", name)
      yield* client.probe.send(`PLAY ${name}`)
      yield* client.probe.next("OK", this.answerMs, () => client.report.letter !== undefined || client.report.ending !== undefined).pipe(
        Effect.mapError((error) => new Stop(silenceFailure(error, "the server did not let a new player in", Spec.ok, client.probe.lastSent())))
      )
      if (client.report.ending) {
        return yield* stop({ what: "the server refused a new player", sent: client.probe.lastSent(), got: client.probe.recent(1).join(""), spec: Spec.ok })
      }
      yield* this.until(client, "its first DISPLAY", () => client.report.position !== undefined, Spec.thenGridAndGold)
      return client
    })
  }

  /** The spectator, joining one if there is none. */
  watch(): Effect.Effect<Client, Stop | UdpError> {
    return Effect.gen(this, function*() {
      if (this.spectator && !this.spectator.left) return this.spectator
      const client = yield* this.open("spectator")
      this.spectator = client
      yield* client.probe.send("SPECTATE")
      yield* this.until(client, "GRID and DISPLAY", () => client.report.view !== undefined, Spec.spectatorGridGold)
      return client
    })
  }

  /** Waits until `done` holds for `client` (checked as each of its datagrams comes). */
  until(client: Client, what: string, done: () => boolean, spec: SpecLine, ms = this.answerMs): Effect.Effect<void, Stop> {
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
      yield* this.until(spectator, `DISPLAY showing ${letter}`, () => this.spectatorSees(letter) !== undefined, Spec.spectatorView)
      return this.spectatorSees(letter)!
    })
  }

  /** Where `letter` stands as the spectator sees it. */
  spectatorSees(letter: string): { readonly row: number; readonly col: number } | undefined {
    const view = this.view
    if (!view) return undefined
    for (let row = 0; row < view.length; row++) {
      const col = view[row]!.indexOf(letter)
      if (col !== -1) return { row, col }
    }
    return undefined
  }
}
