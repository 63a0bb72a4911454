import { Deferred, Effect, Either, ExecutionStrategy, Exit, Option, Scope } from "effect"
import { resolveHost } from "../../net/resolve.js"
import { Udp } from "../../net/udp.js"
import type { Failure } from "../conformance/failure.js"
import { Requirements } from "../conformance/requirements.js"
import { Clients } from "./clients.js"
import { type Ended, exitWords, launch, LaunchError } from "./launch.js"
import { describeSent, reproduction, type Sent, type SendLog } from "./sends.js"
import type { Game } from "./server-check.js"
import type { Traffic } from "./traffic.js"

/**
 * The servers a `check server` run plays on, one game each: the one at HOST PORT, or, with
 * `-- COMMAND`, as many as the checker starts: the first, one for each check that needs a
 * fresh game, and one after each crash. Each game has its own clients and scope (closed, and
 * its server stopped, when the next starts). A server that dies before its game is over is
 * found here, with when it died, and laid at the datagram sent last before.
 */

export type Target =
  | { readonly _tag: "Address"; readonly host: string; readonly port: number }
  | { readonly _tag: "Command"; readonly command: ReadonlyArray<string>; readonly map: string | undefined; readonly seed: number }

export interface Death {
  /** What is known of how it died: its exit, or the port found closed. */
  readonly how: string
  /** Its exit, when the checker started it. */
  readonly ended?: Ended
  /** The datagram sent last before it died. */
  readonly culprit: Sent | undefined
}

/** How long a server started afresh may take to open its port. */
const startMs = 10_000

interface Current {
  readonly game: Game
  readonly clients: Clients
  readonly scope: Scope.CloseableScope
}

export class Games {
  private current: Current | undefined
  private readonly every: Array<Clients> = []

  private constructor(
    readonly target: Target,
    private readonly traffic: Traffic,
    private readonly sends: SendLog,
    private readonly runScope: Scope.Scope,
    private readonly udp: Udp["Type"],
    private readonly answerMs: number
  ) {}

  /** The first game: the server reached, or started. */
  static start(target: Target, traffic: Traffic, sends: SendLog, answerMs: number): Effect.Effect<Games, LaunchError, Scope.Scope | Udp> {
    return Effect.gen(function*() {
      const games = new Games(target, traffic, sends, yield* Effect.scope, yield* Udp, answerMs)
      yield* games.begin()
      return games
    })
  }

  /** Whether the checker starts the server itself, and so can start it afresh. */
  get startable(): boolean {
    return this.target._tag === "Command"
  }

  get game(): Game {
    return this.now.game
  }

  get clients(): Clients {
    return this.now.clients
  }

  /** The clients of every game so far. */
  get all(): ReadonlyArray<Clients> {
    return this.every
  }

  /** Whether anything was sent to this game's server yet. */
  get used(): boolean {
    return this.clients.all.length > 0
  }

  private get now(): Current {
    if (this.current === undefined) throw new Error("no game started")
    return this.current
  }

  private begin(): Effect.Effect<void, LaunchError> {
    return Effect.gen(this, function*() {
      const scope = yield* Scope.fork(this.runScope, ExecutionStrategy.sequential)
      const number = this.every.length + 1
      const started = yield* this.reach().pipe(Scope.extend(scope), Effect.tapError(() => Scope.close(scope, Exit.void)))
      const clients = yield* Clients.make({ server: started.server, answerMs: this.answerMs }, this.traffic, this.sends, scope).pipe(
        Effect.provideService(Udp, this.udp)
      )
      if (number > 1) this.traffic.newGame()
      this.sends.session = number
      this.every.push(clients)
      this.current = { game: { number, launched: started.launched }, clients, scope }
    })
  }

  private reach() {
    const target = this.target
    return Effect.gen(function*() {
      if (target._tag === "Address") {
        const resolved = yield* resolveHost(target.host).pipe(Effect.mapError((error) => new LaunchError({ message: error.message })))
        return { server: { address: resolved.address, port: target.port }, launched: undefined }
      }
      const launched = yield* launch({ command: target.command, map: target.map, seed: target.seed, startMs })
      return { server: { address: "127.0.0.1", port: launched.port }, launched }
    })
  }

  /** Ends this game (its clients closed, its server stopped) and starts a fresh server. */
  restart(): Effect.Effect<void, LaunchError> {
    return Effect.gen(this, function*() {
      yield* Scope.close(this.now.scope, Exit.void)
      yield* this.begin()
    })
  }

  /** How this game's server died before its game was over, if it did. */
  death(): Death | undefined {
    const { clients, game } = this.now
    // A server that never answered did not die: nothing was there (join-spectator says so).
    if (clients.gameEnded || !clients.all.some((client) => client.welcome.length > 0)) return undefined
    const ended = game.launched?.ended()
    if (ended !== undefined) return { how: `its process ended (${exitWords(ended)})`, ended, culprit: this.sends.lastBefore(ended.at) }
    const refused = clients.refusedAt
    if (refused !== undefined && game.launched === undefined) {
      return { how: "its port closed (the system answered \"port unreachable\")", culprit: this.sends.before(refused) }
    }
    return undefined
  }

  /**
   * What what the culprit's client sent, sent alone from one socket to a fresh server, does
   * to it: the proof that it is the cause, when it kills it again. Undefined when the
   * checker cannot start one.
   */
  confirm(culprit: Sent, first: Ended | undefined): Effect.Effect<Confirmation | undefined, never> {
    const target = this.target
    if (target._tag !== "Command") return Effect.succeed(undefined)
    const history = this.sends.historyOf(culprit)
    const udp = this.udp
    return Effect.gen(function*() {
      const launched = yield* launch({ command: target.command, map: target.map, seed: target.seed, startMs })
      const socket = yield* udp.open({ connectTo: { address: "127.0.0.1", port: launched.port } })
      for (const each of history) {
        yield* socket.send(each.bytes, { address: "127.0.0.1", port: launched.port })
        yield* Deferred.await(launched.exit).pipe(Effect.timeoutOption(100))
      }
      const ended = yield* Deferred.await(launched.exit).pipe(Effect.timeoutOption(1000))
      return Option.match(ended, { onNone: (): Confirmation => "survived", onSome: (fresh) => confirmationOf(fresh, first) })
    }).pipe(
      Effect.scoped,
      Effect.either,
      Effect.map((result) => (Either.isRight(result) ? result.right : undefined))
    )
  }
}

/**
 * What the culprit's datagrams did to a fresh server: killed it (a signal, an exit with a
 * status other than 0, or the very exit the first server died of), or nothing, or it
 * exited 0: a normal exit, the game's end by the server's own rule (one ends when its last
 * player quits), which is no crash.
 */
export type Confirmation = "killed" | "survived" | "exited normally"

const confirmationOf = (fresh: Ended, first: Ended | undefined): Confirmation => {
  const normal = (ended: Ended) => ended.signal === null && ended.code === 0
  return normal(fresh) && (first === undefined || !normal(first)) ? "exited normally" : "killed"
}

/** A crash as a failure of the check that sent the datagram: what killed the server, and how to do it again. */
export const crashFailure = (death: Death, target: Target, confirmed: Confirmation | undefined, history: ReadonlyArray<Sent>): Failure => {
  const culprit = death.culprit
  if (culprit === undefined) return { what: `the server died: ${death.how}`, spec: Requirements.reactToMessages }
  const host = target._tag === "Address" ? target.host : "127.0.0.1"
  const port = target._tag === "Address" ? String(target.port) : "PORT"
  const proof = confirmed === "killed"
    ? "sent alone, from one client, to a server started afresh, these datagrams kill it again:"
    : confirmed === "survived"
    ? "sent alone to a server started afresh, these datagrams did not kill it: the cause may be an earlier datagram, or another client's; what was sent:"
    : confirmed === "exited normally"
    ? "sent alone to a server started afresh, these datagrams did not kill it: it exited normally (exit status 0), as at its game's end; the cause may be an earlier datagram, or another client's; what was sent:"
    : "to try it on a fresh server:"
  return {
    what: `the server died after it was sent ${describeSent(culprit)}: ${death.how}`,
    sent: describeSent(culprit),
    got: death.how,
    detail: [proof, reproduction(history.map((each) => each.bytes), host, port) + (port === "PORT" ? "   (PORT: the fresh server's port)" : "")],
    spec: Requirements.reactToMessages
  }
}
