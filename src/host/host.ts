/**
 * The games of `nuggets host`: the one owner of every game the process runs. Longer than
 * most files (about 400 lines) because starting, watching and ending a game are one life
 * with one set of books (the games running, those starting, the ports, the pace of new
 * games); what a game is made of is `stack.ts`, and how it is told is `json.ts`.
 */
import {
  Context,
  Deferred,
  Duration,
  Effect,
  ExecutionStrategy,
  Exit,
  Fiber,
  FiberId,
  FiberRef,
  FiberSet,
  HashSet,
  Layer,
  Logger,
  Random,
  type Scope,
  Scope as Scopes
} from "effect"
import { rm } from "node:fs/promises"
import { ArchiveOwner } from "../archive/archive.js"
import type { ArchiveError } from "../archive/errors.js"
import type { Reconciled } from "../archive/model.js"
import { mapText } from "../core/map.js"
import type { Rules, Variant } from "../core/rules.js"
import type { Handled } from "../core/state.js"
import { Udp, type UdpError, UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import { LiveGame, type ServedGame } from "../server/liveGame.js"
import { defaultLinger } from "../server/udpLoop.js"
import { GameWeb, type GameWebOptions } from "../web/gameWeb.js"
import { gameRoutesLayer } from "../web/live.js"
import { GameRefused } from "./errors.js"
import type { HostMap } from "./maps.js"
import { StartPace } from "./pace.js"
import { PortPool, type PortRange } from "./ports.js"
import { rulesFor } from "../protocol/dialect.js"
import { gameStack } from "../server/stack.js"

/** How a host runs its games (the command line's choices). */
export interface HostSettings {
  readonly maps: ReadonlyArray<HostMap>
  /** The address the games' UDP sockets listen on (`--host`). */
  readonly udpHost: string
  readonly ports: PortRange | undefined
  /** Host with free places kept open (`--open`). */
  readonly open: number
  readonly maxGames: number
  readonly idleTimeout: Duration.Duration
  /** For games opened by the host, and requests that do not say. */
  readonly variant: Variant
  readonly dialect: Dialect
  /** What players type to reach the games: `nuggets join ADDRESS PORT NAME`. */
  readonly joinAddress: string
  /** New games a second that requests may start, and how many at once: a flood of requests starts no more. */
  readonly startRate?: { readonly perSecond: number; readonly burst: number }
  /** How long a game stays after its end, answering latecomers with GAMEOVER. */
  readonly linger?: Duration.DurationInput
  /** What every game's host is given besides (tests: quick last words, keys as fast as sent). */
  readonly gameOptions?: Partial<Omit<ServedGame, "map" | "seed" | "rules" | "idleTimeout">>
  /** The rules of a game; the dialect's preset with its variant when not given (tests give a rule that throws). */
  readonly rulesOf?: (choice: GameChoice) => Rules
  readonly web?: GameWebOptions
}

/** What a game is played on and by. */
export interface GameChoice {
  readonly map: HostMap
  readonly seed: number
  readonly variant: Variant
  readonly dialect: Dialect
}

/** What a request for a new game may say; the rest is chosen for it. */
export interface GameWanted {
  readonly map?: string | undefined
  readonly seed?: number | undefined
  readonly variant?: Variant | undefined
  readonly dialect?: Dialect | undefined
}

export interface RunningGame {
  readonly id: string
  /** Its recording. */
  readonly file: string
  readonly choice: GameChoice
  readonly port: number
  readonly startedMs: number
  readonly live: LiveGame
  readonly web: GameWeb
}

export interface HostService {
  readonly settings: HostSettings
  /** The games being played (or lingering after their end), oldest first. */
  readonly running: () => ReadonlyArray<RunningGame>
  readonly find: (id: string) => RunningGame | undefined
  /** A new game, asked for by a request (`POST /api/games`): within `maxGames` and the pace of new games. */
  readonly request: (wanted: GameWanted) => Effect.Effect<RunningGame, GameRefused>
  /** Grows whenever what the lobby shows may have changed (a game started, ended, joined, gold found). */
  readonly version: () => number
  /** Succeeds once `version` is past `since`. */
  readonly changedSince: (since: number) => Effect.Effect<void>
  /** Host ended and indexed since the host started: the archive changed when this grows. */
  readonly archived: () => number
  /** Ends every game as `serve` ends its game when stopped (QUIT to everyone), recordings closed. */
  readonly stopAll: Effect.Effect<void>
}

export class Host extends Context.Tag("nuggets/Host")<Host, HostService>() {}

/** Whether a game still lets a player in: not over, a letter left. */
export const hasFreePlace = (host: LiveGame): boolean => {
  const state = host.state()
  return !state.over && state.players.length < state.rules.maxPlayers
}

const defaultStartRate = { perSecond: 2, burst: 4 }
/** How long stopping may index the games it ended before leaving the rest to the next start's reconcile. */
const stopIndexing = Duration.seconds(1.5)

/** Every log line of a game's fibers names the game. */
const namingGame = (id: string) =>
  Effect.locallyWith(FiberRef.currentLoggers, (loggers) =>
    HashSet.map(loggers, (logger) => Logger.mapInput(logger, (message: unknown) => [`game ${id}:`, message])))

/** What reconciling the archive at start did, in a line or two for the log (none when it did nothing). */
const reconciledLines = (done: Reconciled): ReadonlyArray<string> => {
  const parts = [
    done.indexed.length > 0 ? `${done.indexed.length} recordings indexed` : "",
    done.interrupted.length > 0 ? `${done.interrupted.length} games interrupted when the host last stopped` : "",
    done.removed.length > 0 ? `${done.removed.length} games whose recording is gone dropped` : ""
  ].filter(Boolean)
  return [
    ...(parts.length > 0 ? [`the archive: ${parts.join("; ")}`] : []),
    ...done.skipped.map((each) => `the archive: ${each.file} skipped — ${each.reason}`)
  ]
}

/**
 * The games, for as long as the scope lasts: the archive is first brought up to date with
 * the recordings on disk (a game in play when the host last died is `interrupted`), then
 * `--open` games are opened. The scope's end stops every game (see `stopAll`).
 */
export const makeHost = (settings: HostSettings): Effect.Effect<HostService, ArchiveError, Scope.Scope | Udp | ArchiveOwner> =>
  Effect.gen(function*() {
    const owner = yield* ArchiveOwner
    const done = yield* owner.reconcile(settings.maps.map((each) => ({ name: each.name, mapText: mapText(each.map) })))
    yield* Effect.forEach(reconciledLines(done), (line) => Effect.logInfo(line), { discard: true })
    const udp = yield* Udp
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock
    const supervisors = yield* FiberSet.make()
    /** Runs an Effect in a fiber of the host's: a callback on a game's hot path may ask for work. */
    const runHere = yield* FiberSet.makeRuntime<never, void, never>()
    const pool = new PortPool(settings.ports)
    const games = new Map<string, RunningGame>()
    /** Host whose scope is closing or closed, on their way to the archive: no longer offered. */
    const closing = new Set<string>()
    /** Host being started: counted against `maxGames`, and as open. */
    let starting = 0
    let stopping = false
    let nextMap = 0
    let archived = 0
    const linger = settings.linger ?? defaultLinger
    const pace = new StartPace(settings.startRate ?? defaultStartRate, clock.unsafeCurrentTimeMillis())

    let version = 0
    let waiting: Deferred.Deferred<void> | undefined
    const changed = () => {
      version++
      const woken = waiting
      waiting = undefined
      if (woken) Deferred.unsafeDone(woken, Exit.void)
    }
    const changedSince = (since: number) =>
      Effect.suspend(() => (version > since ? Effect.void : Deferred.await(waiting ??= Deferred.unsafeMake<void>(FiberId.none))))

    const mapNamed = (name: string) =>
      settings.maps.find((each) => each.name === name) ??
        settings.maps.find((each) => each.name.toLowerCase() === name.toLowerCase())

    /** The game the host opens by itself, or a request does not describe: the next map in turn. */
    const choose = (wanted: GameWanted) =>
      Effect.gen(function*() {
        let map = settings.maps[nextMap++ % settings.maps.length]!
        if (wanted.map !== undefined) {
          const named = mapNamed(wanted.map)
          if (named === undefined) {
            const names = settings.maps.map((each) => each.name).join(", ")
            return yield* new GameRefused({ reason: "UnknownMap", message: `no map named ${JSON.stringify(wanted.map)}; the maps are ${names}` })
          }
          map = named
        }
        const seed = wanted.seed ?? (yield* Random.nextIntBetween(0, 2 ** 31))
        return { map, seed, variant: wanted.variant ?? settings.variant, dialect: wanted.dialect ?? settings.dialect } satisfies GameChoice
      })

    /** The game's socket on the first free port of the range (another program may hold some). */
    const bind = (gameScope: Scope.Scope) =>
      Effect.gen(function*() {
        let last: UdpError | undefined
        for (const port of pool.candidates()) {
          const opened = yield* Effect.either(Scopes.extend(udp.open({ port, host: settings.udpHost }), gameScope))
          if (opened._tag === "Right") {
            pool.take(opened.right.local.port)
            return opened.right
          }
          last = opened.left
          if (last.reason !== "PortInUse") break
        }
        const why = last === undefined ? "every port of --ports is taken by a game" : last.message
        return yield* new GameRefused({ reason: "CannotStart", message: `no port for a new game: ${why}` })
      })

    /** A game made and running, in a scope of its own; the books say it is starting until then. */
    const launch = (choice: GameChoice): Effect.Effect<RunningGame, GameRefused> =>
      Effect.gen(function*() {
        const started = yield* owner.gameStarted({
          mapName: choice.map.name,
          mapText: mapText(choice.map.map),
          seed: choice.seed,
          variant: choice.variant,
          dialect: choice.dialect
        }).pipe(Effect.mapError((error) => new GameRefused({ reason: "CannotStart", message: error.message })))
        const gameScope = yield* Scopes.fork(scope, ExecutionStrategy.sequential)
        const built = yield* Effect.gen(function*() {
          const socket = yield* bind(gameScope)
          const layers = gameStack({
            game: {
              ...settings.gameOptions,
              map: choice.map.map,
              seed: choice.seed,
              dialect: choice.dialect,
              rules: settings.rulesOf?.(choice) ?? rulesFor(choice.dialect, choice.variant),
              idleTimeout: settings.idleTimeout,
              defects: "end"
            },
            socket: Layer.succeed(UdpSocket, socket),
            record: { path: started.file, overwrite: false },
            // Listening before the UDP loop takes a datagram, with the game's web side.
            web: Layer.merge(gameRoutesLayer(settings.web), Layer.effectDiscard(Effect.map(LiveGame, (host) => watch(started.id, host))))
          })
          const context = yield* Layer.buildWithScope(layers, gameScope).pipe(
            Effect.mapError((error) => new GameRefused({ reason: "CannotStart", message: error.message }))
          )
          const game: RunningGame = {
            id: started.id,
            file: started.file,
            choice,
            port: socket.local.port,
            startedMs: clock.unsafeCurrentTimeMillis(),
            live: Context.get(context, LiveGame),
            web: Context.get(context, GameWeb)
          }
          return game
        }).pipe(
          namingGame(started.id),
          Effect.tapError(() =>
            Scopes.close(gameScope, Exit.void).pipe(
              // The row of a game that never started goes with its recording (there is none, or one with no move).
              Effect.zipRight(Effect.ignore(owner.gameEnded(started.id)))
            )
          )
        )
        if (stopping) {
          yield* Scopes.close(gameScope, Exit.void)
          return yield* new GameRefused({ reason: "Stopping", message: "the host is stopping" })
        }
        games.set(built.id, built)
        yield* FiberSet.run(supervisors, supervise(built, gameScope).pipe(namingGame(built.id)))
        yield* Effect.logInfo(
          `game ${built.id}: ${choice.map.name}, seed ${choice.seed}, ${choice.variant}, ${choice.dialect} dialect, ` +
            `on port ${built.port}: nuggets join ${settings.joinAddress} ${built.port} NAME`
        )
        changed()
        return built
      })

    /** The games that took a message: a game no one ever came to leaves nothing behind. */
    const visited = new Set<string>()

    /** What the lobby shows changes with a join, a quit, gold found: not with every step. */
    const watch = (id: string, host: LiveGame) => {
      let gold = host.state().goldRemaining
      let came = false
      host.onHandled(({ request, transition }: Handled) => {
        if (!came) visited.add(id)
        came = true
        if (request._tag === "Key" && request.key !== "Q" && transition.state.goldRemaining === gold) return
        gold = transition.state.goldRemaining
        changed()
        if (request._tag === "Play") runHere(keepOpen)
      })
    }

    /**
     * A game's life after its start: to its end (and `linger` more), or to the defect that
     * stops it (everyone is told to quit), or to the host's stop (likewise); then its scope
     * closes (the recording flushed, its port given back) and the archive indexes it.
     */
    const supervise = (game: RunningGame, gameScope: Scope.CloseableScope) =>
      Effect.gen(function*() {
        const ending = yield* Effect.raceAll([
          game.live.finished.pipe(Effect.as({ _tag: "Over" } as const)),
          game.live.failed.pipe(Effect.map((defect) => ({ _tag: "Defect", defect }) as const)),
          abandoned(game).pipe(Effect.as({ _tag: "Abandoned" } as const))
        ])
        if (ending._tag === "Defect") {
          yield* Effect.logError(`a defect ended the game: ${ending.defect}`)
          yield* game.live.shutDown
        } else if (ending._tag === "Abandoned") {
          yield* Effect.logInfo(`no one in it for ${Duration.format(settings.idleTimeout)}: ended`)
          yield* game.live.shutDown
        } else {
          yield* Effect.logInfo(`game over: ${game.live.summary().trimEnd().split("\n").join("; ")}`)
          changed()
          yield* game.live.lastWordsSent.pipe(Effect.zipRight(Effect.sleep(linger)))
        }
      }).pipe(
        // Stopped: the game ends as `serve` ends it, with a QUIT to everyone.
        Effect.onInterrupt(() => game.live.shutDown),
        Effect.ensuring(Effect.suspend(() => ended(game, gameScope)))
      )

    /**
     * Succeeds once no one has been in `game` (no player, no spectator) for the idle
     * timeout, and it is not one of the `--open` games kept open: a flood of requests
     * cannot keep the host full of empty games for good.
     */
    const abandoned = (game: RunningGame) =>
      Effect.gen(function*() {
        const limit = Duration.toMillis(settings.idleTimeout)
        const step = Math.min(60_000, Math.max(50, limit / 10))
        let emptySince: number | undefined
        for (;;) {
          yield* Effect.sleep(step)
          const state = game.live.state()
          if (state.spectator !== undefined || state.players.some((each) => each.active)) {
            emptySince = undefined
            continue
          }
          const now = clock.unsafeCurrentTimeMillis()
          emptySince ??= now
          const openGames = [...games.values()].filter((each) => hasFreePlace(each.live)).length
          if (now - emptySince >= limit && (!hasFreePlace(game.live) || openGames > settings.open)) return
        }
      })

    const stoppedAt = { ms: Infinity }
    /**
     * A game's scope closes (its recording flushed), then the archive takes it, and only
     * then does it leave the books: a game is always either listed or in the archive.
     */
    const ended = (game: RunningGame, gameScope: Scope.CloseableScope) =>
      Effect.gen(function*() {
        closing.add(game.id)
        yield* Scopes.close(gameScope, Exit.void)
        if (!visited.delete(game.id)) {
          // No one came: its recording holds no move. Without the file, the archive drops its row.
          yield* Effect.ignore(Effect.tryPromise(() => rm(game.file, { force: true })))
          yield* Effect.ignore(owner.gameEnded(game.id))
        } else if (!stopping || clock.unsafeCurrentTimeMillis() - stoppedAt.ms < Duration.toMillis(stopIndexing)) {
          // Stopping indexes what it can in its time; the next start's reconcile does the rest.
          yield* owner.gameEnded(game.id).pipe(
            Effect.tap(() => Effect.sync(() => archived++)),
            Effect.catchAll((error) => Effect.logWarning(`the archive could not index it: ${error.message}`))
          )
        }
        games.delete(game.id)
        closing.delete(game.id)
        pool.give(game.port)
        changed()
        if (!stopping) runHere(keepOpen)
      })

    /** `--open N`: games with free places, opened until there are N (within `maxGames`). */
    const keepOpen: Effect.Effect<void> = Effect.suspend(() => {
      if (stopping) return Effect.void
      const open = [...games.values()].filter((game) => hasFreePlace(game.live)).length + starting
      const missing = Math.min(settings.open - open, settings.maxGames - games.size - starting)
      if (missing <= 0) return Effect.void
      starting += missing
      return Effect.forEach(Array.from({ length: missing }), () =>
        choose({}).pipe(
          Effect.flatMap(launch),
          Effect.catchAll((refused) => Effect.logWarning(`could not open a game: ${refused.message}`)),
          Effect.ensuring(Effect.sync(() => starting--))
        ), { concurrency: "unbounded", discard: true })
    })

    const request = (wanted: GameWanted) =>
      Effect.gen(function*() {
        if (stopping) return yield* new GameRefused({ reason: "Stopping", message: "the host is stopping" })
        if (games.size + starting >= settings.maxGames) {
          return yield* new GameRefused({
            reason: "Full",
            message: `the host runs its most games at once (${settings.maxGames}): join one, or try again when one ends`
          })
        }
        // A request for a map there is not is refused before it costs a place in the pace.
        const choice = yield* choose(wanted)
        if (!pace.take(clock.unsafeCurrentTimeMillis())) {
          return yield* new GameRefused({ reason: "TooFast", message: "too many new games at once: try again in a second" })
        }
        starting++
        return yield* launch(choice).pipe(Effect.ensuring(Effect.sync(() => starting--)))
      })

    const stopAll = Effect.suspend(() => {
      stopping = true
      stoppedAt.ms = clock.unsafeCurrentTimeMillis()
      // All at once: each game's last words take half a second. Until none is left: a game may
      // have been starting meanwhile.
      const interruptLeft: Effect.Effect<void> = Effect.suspend(() => {
        const left = Array.from(supervisors)
        return left.length === 0 ? Effect.void : Fiber.interruptAll(left).pipe(Effect.zipRight(interruptLeft))
      })
      return interruptLeft
    })
    yield* Effect.addFinalizer(() => stopAll)

    yield* keepOpen
    return {
      settings,
      running: () => [...games.values()].filter((game) => !closing.has(game.id)),
      find: (id) => (closing.has(id) ? undefined : games.get(id)),
      request,
      version: () => version,
      changedSince,
      archived: () => archived,
      stopAll
    }
  })

export const hostLayer = (settings: HostSettings): Layer.Layer<Host, ArchiveError, Udp | ArchiveOwner> =>
  Layer.scoped(Host, makeHost(settings))
