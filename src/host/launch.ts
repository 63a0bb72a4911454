import { Context, Deferred, Duration, Effect, ExecutionStrategy, Exit, FiberSet, Layer, type Scope, Scope as Scopes } from "effect"
import { ArchiveOwner } from "../archive/archive.js"
import type { StartedGame } from "../archive/model.js"
import { mapText } from "../core/map.js"
import { type GameState, type Request, standings } from "../core/state.js"
import { Udp, type UdpError, UdpSocket } from "../net/udp.js"
import { rulesFor, summaryText } from "../protocol/dialect.js"
import { endWords } from "../protocol/endings.js"
import { LiveGame } from "../server/liveGame.js"
import { RecordingError, recordingWords } from "../recording/lines.js"
import { gameStack } from "../server/stack.js"
import { defaultLinger } from "../server/udpLoop.js"
import { GameWeb } from "../web/gameWeb.js"
import { gameRoutesLayer } from "../web/live.js"
import { type Books, closing, endsDeserted, gone, type Limits, played, portCandidates, started } from "./books.js"
import { gameAnnotation } from "../log.js"
import { GameRefused } from "./errors.js"
import type { HostMetricsService } from "./metrics.js"
import type { Owed } from "./owed.js"
import type { Counts } from "../server/counts.js"
import { type GameChoice, hasFreePlace, type HostSettings, type RunningGame } from "./model.js"

/** How long stopping may index the games it ended before leaving the rest to the next start's reconcile. */
const stopIndexing = Duration.seconds(1.5)

/** Whether a game that goes now is indexed now: always, but late in the host's stop. */
const indexesNow = (books: Books, now: number) => books.stoppedAt === undefined || now - books.stoppedAt < Duration.toMillis(stopIndexing)

/** What starting and ending games needs of the host: its books, its games' handles, and what to tell. */
export interface Launcher {
  readonly settings: HostSettings
  /** Whether the host takes new players now: each game asks at each PLAY. */
  readonly admits: () => boolean
  /** Where a game's end is counted. */
  readonly metrics: HostMetricsService
  /** Where every game counts what it takes and refuses. */
  readonly counts: Counts
  readonly limits: Limits
  readonly books: () => Books
  readonly update: (change: (books: Books) => Books) => void
  readonly games: Map<string, RunningGame>
  /** What the lobby shows changed. */
  readonly changed: Effect.Effect<void>
  /** Where the archive's work for a game gone that it could not do now (a full disk) waits. */
  readonly owed: Owed
  /**
   * Opens games until `--open` have free places, in a fiber of the host's own: not of the
   * game that asked (its end would interrupt a start half made), nor of a finalizer's.
   */
  readonly keepOpen: Effect.Effect<void>
  /** Where each game's watching fiber runs: the host's stop interrupts them all. */
  readonly supervisors: FiberSet.FiberSet
}

/** Every log line of a game's fibers names the game (`game ID: ...` in text, a field in JSON). */
const namingGame = (id: string) => Effect.annotateLogs(gameAnnotation, id)

/** The books' following of a game (`followedLayer`), told once the game is in the books. */
class Followed extends Context.Tag("nuggets/host/Followed")<Followed, { readonly booked: () => Effect.Effect<void> | undefined }>() {}

/** The archive or the recording failed (a full disk): the request's answer and the log name the file and why. */
const cannotStart = (error: { readonly message: string }) =>
  new GameRefused({ reason: "CannotStart", message: `cannot start a game: ${error instanceof RecordingError ? recordingWords(error) : error.message}` })

/** What the lobby shows of a game changes with a join, a quit, gold found: not with every step. */
const shownChange = (before: GameState, after: GameState) =>
  before.goldRemaining !== after.goldRemaining || before.players.length !== after.players.length ||
  before.spectator !== after.spectator || before.players.some((each, i) => each.active !== after.players[i]!.active)

/** The game's socket on the first free port of the range (another program may hold some). */
const socketLayer = (host: Launcher) =>
  Layer.scoped(
    UdpSocket,
    Effect.gen(function*() {
      const udp = yield* Udp
      let last: UdpError | undefined
      for (const port of portCandidates(host.books(), host.limits)) {
        const opened = yield* Effect.either(udp.open({ port, host: host.settings.udpHost }))
        if (opened._tag === "Right") return opened.right
        last = opened.left
        if (last.reason !== "PortInUse") break
      }
      const why = last === undefined ? "every port of --ports is taken by a game" : last.message
      return yield* new GameRefused({ reason: "CannotStart", message: `no port for a new game: ${why}` })
    })
  )

/**
 * The books follow what the game says of itself, in the game's own call (a key wakes no
 * fiber): that someone came, and whether a newcomer still has a place; what the lobby
 * shows, when it changed; a deserted game the books let go is ended (`deserted`). Followed
 * as the game is built, before its first datagram: what it took before it was in the books
 * is told to them once it is (`booked`).
 */
const followedLayer = (host: Launcher, id: string, deserted: Deferred.Deferred<void>) =>
  Layer.scoped(
    Followed,
    Effect.gen(function*() {
      const live = yield* LiveGame
      let shown = live.state()
      let inBooks = false
      /** What the game took before it was in the books: a Play, if one came. */
      let tookEarly: Request | undefined
      const took = (request: Request): Effect.Effect<void> | undefined => {
        host.update((now) => played(now, id, hasFreePlace(live)))
        const state = live.state()
        if (!shownChange(shown, state)) return undefined
        shown = state
        return request._tag === "Play" ? Effect.zipRight(host.changed, host.keepOpen) : host.changed
      }
      yield* live.follow((event) => {
        if (event._tag === "Deserted" && endsDeserted(host.books(), host.limits, id)) Deferred.unsafeDone(deserted, Exit.void)
        if (event._tag !== "Took") return
        if (inBooks) return took(event.request)
        if (tookEarly?._tag !== "Play") tookEarly = event.request
      })
      return {
        booked: () => {
          inBooks = true
          return tookEarly && took(tookEarly)
        }
      }
    })
  )

/** One game, as one Layer: listening on every side before its UDP loop takes a datagram. */
const gameLayer = (host: Launcher, choice: GameChoice, recording: StartedGame, deserted: Deferred.Deferred<void>) => {
  const { settings } = host
  return gameStack({
    game: {
      ...settings.gameOptions,
      map: choice.map.map,
      seed: choice.seed,
      dialect: choice.dialect,
      rules: settings.rulesOf?.(choice) ?? rulesFor(choice.dialect, choice.variant),
      idleTimeout: settings.idleTimeout,
      defects: "end",
      admits: host.admits,
      counts: host.counts
    },
    socket: socketLayer(host),
    record: { to: recording.recording },
    web: Layer.merge(gameRoutesLayer(settings.web), followedLayer(host, recording.id, deserted))
  })
}

/**
 * Starting a game, as a request or `--open` asks (the books have counted it as starting):
 * the archive gives it an id and a recording; then it is one scoped Layer (its socket on
 * the first free port of `--ports`, the game, its recording, its web routes) built in a
 * scope of its own, and watched by one fiber to its end, a defect, desertion or the host's
 * stop; then its scope closes, alone, and the archive indexes the recording.
 */
export const launchGame = (host: Launcher) =>
  Effect.gen(function*() {
    const { settings, limits, books, update, games } = host
    const owner = yield* ArchiveOwner
    const udp = Layer.succeed(Udp, yield* Udp)
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock

    /**
     * A game's life after its start: to its end (and `linger` more), or to the defect that
     * stops it, or desertion, or the host's stop (everyone is told to quit); then it goes.
     */
    const supervise = (game: RunningGame, deserted: Deferred.Deferred<void>, gameScope: Scope.CloseableScope) =>
      Effect.gen(function*() {
        const ending = yield* Effect.raceFirst(game.live.ended, Effect.as(Deferred.await(deserted), undefined))
        if (ending === undefined) {
          yield* Effect.logInfo(`no one in it for ${Duration.format(settings.idleTimeout)}: ended`)
          yield* game.live.shutDown
        } else if (ending._tag === "Failed") {
          yield* Effect.logError(`a defect ended the game: ${ending.defect}`)
          yield* game.live.shutDown
        } else if (ending._tag !== "ShutDown") {
          yield* Effect.logInfo(`game ${endWords[ending._tag]}: ${summaryText(standings(ending.state)).trimEnd().split("\n").join("; ")}`)
          yield* host.changed
          yield* game.live.lastWordsSent.pipe(Effect.zipRight(Effect.sleep(settings.linger ?? defaultLinger)))
        }
      }).pipe(
        // Stopped: the game ends as `serve` ends it, with a QUIT to everyone.
        Effect.onInterrupt(() => game.live.shutDown),
        Effect.ensuring(Effect.suspend(() => goes(game, gameScope)))
      )

    /**
     * A game's scope closes (its recording flushed), then the archive takes it, and only then
     * does it leave the books: a game is always either listed or in the archive. Whatever the
     * archive says, the game leaves the books: its place and its port come back.
     */
    const goes = (game: RunningGame, gameScope: Scope.CloseableScope) =>
      Effect.gen(function*() {
        update((now) => closing(now, game.id))
        yield* Scopes.close(gameScope, Exit.void)
        const life = game.live.life()
        if (life._tag !== "Playing") host.metrics.gameEnded(endWords[life._tag], (clock.unsafeCurrentTimeMillis() - game.startedMs) / 1000)
        const booked = books().games.get(game.id)
        let archived = false
        if (booked?.visited !== true) {
          // No one came: its recording holds no move, and nothing of it is kept.
          yield* owner.gameDropped(game.id).pipe(Effect.catchAllCause((cause) => host.owed.owe(game.id, "drop", cause)))
        } else if (indexesNow(books(), clock.unsafeCurrentTimeMillis())) {
          // Stopping indexes what it can in its time; the next start's reconcile does the rest.
          archived = yield* owner.gameEnded(game.id).pipe(
            Effect.as(true),
            Effect.catchAllCause((cause) => host.owed.owe(game.id, "index", cause).pipe(Effect.as(false)))
          )
        }
        update((now) => gone(now, game.id, archived))
        games.delete(game.id)
        yield* host.changed
        if (!books().stopping) yield* host.keepOpen
      })

    return (choice: GameChoice): Effect.Effect<RunningGame, GameRefused> =>
      Effect.gen(function*() {
        const recording = yield* owner.gameStarted({
          mapName: choice.map.name,
          mapText: mapText(choice.map.map),
          seed: choice.seed,
          variant: choice.variant,
          dialect: choice.dialect
        }).pipe(Effect.mapError(cannotStart))
        const gameScope = yield* Scopes.fork(scope, ExecutionStrategy.sequential)
        const forget = Scopes.close(gameScope, Exit.void).pipe(
          // The row of a game that never started goes with its recording (there is none, or one with no move).
          Effect.zipRight(owner.gameDropped(recording.id).pipe(Effect.catchAllCause((cause) => host.owed.owe(recording.id, "drop", cause))))
        )
        const deserted = yield* Deferred.make<void>()
        const context = yield* Layer.buildWithScope(gameLayer(host, choice, recording, deserted).pipe(Layer.provide(udp)), gameScope).pipe(
          Effect.mapError((error) => (error instanceof GameRefused ? error : cannotStart(error))),
          namingGame(recording.id),
          Effect.tapError(() => forget)
        )
        if (books().stopping) {
          yield* forget
          return yield* new GameRefused({ reason: "Stopping", message: "the host is stopping" })
        }
        const game: RunningGame = {
          id: recording.id,
          choice,
          port: Context.get(context, UdpSocket).local.port,
          startedMs: clock.unsafeCurrentTimeMillis(),
          live: Context.get(context, LiveGame),
          web: Context.get(context, GameWeb)
        }
        update((now) => started(now, limits, game.id, game.port, hasFreePlace(game.live)))
        games.set(game.id, game)
        const told = Context.get(context, Followed).booked()
        if (told !== undefined) yield* Effect.forkIn(namingGame(game.id)(told), gameScope)
        yield* FiberSet.run(host.supervisors, supervise(game, deserted, gameScope).pipe(namingGame(game.id)))
        yield* Effect.logInfo(
          `started: ${choice.map.name}, seed ${choice.seed}, ${choice.variant}, ${choice.dialect} dialect, ` +
            `on port ${game.port}: nuggets join ${settings.joinAddress} ${game.port} NAME`
        ).pipe(namingGame(game.id))
        yield* host.changed
        return game
      })
  })
