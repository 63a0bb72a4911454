import { Context, Effect, Either, Fiber, FiberHandle, FiberRef, FiberSet, HashMap, Layer, Option, Random, Schedule, type Scope, SubscriptionRef } from "effect"
import { ArchiveOwner } from "../archive/archive.js"
import type { ArchiveError } from "../archive/errors.js"
import type { Reconciled } from "../archive/model.js"
import { repairedLine } from "../archive/repair.js"
import { mapText } from "../core/map.js"
import { Udp } from "../net/udp.js"
import { admit, type Books, gaveUp, indexedLate, type Limits, missingOpen, nextTurn, offered, openBooks, opening, type Rate, stop } from "./books.js"
import { Admission } from "./admission.js"
import { Counts, ProcessCounts } from "../server/counts.js"
import { HostMetrics } from "./metrics.js"
import { GameRefused } from "./errors.js"
import { launchGame } from "./launch.js"
import type { HostMap } from "./maps.js"
import { makeOwed } from "./owed.js"
import { gameAnnotation } from "../log.js"
import type { GameChoice, GameWanted, HostSettings, RunningGame } from "./model.js"
import { plural } from "../words.js"

export interface HostService {
  readonly settings: HostSettings
  /** The games being played (or lingering after their end), oldest first. */
  readonly running: () => ReadonlyArray<RunningGame>
  /** Every game not yet in the archive: those `running`, and those closing on their way to it. */
  readonly unarchived: () => ReadonlyArray<RunningGame>
  /** Games being started now. */
  readonly startingNow: () => number
  readonly find: (id: string) => RunningGame | undefined
  /**
   * A new game, asked for by a request (`POST /api/games`) from `client` (its address): within
   * `maxGames`, and the pace of new games of that client and of everyone.
   */
  readonly request: (wanted: GameWanted, client?: string) => Effect.Effect<RunningGame, GameRefused>
  /** Grows whenever what the lobby shows may have changed (a game started, ended, joined, gold found). */
  readonly changes: SubscriptionRef.SubscriptionRef<number>
  /** Games ended and indexed since the host started: the archive changed when this grows. */
  readonly archived: () => number
  /** Ends every game as `serve` ends its game when stopped (QUIT to everyone), recordings closed. */
  readonly stopAll: Effect.Effect<void>
  /** Ends every game as `stopAll` does, but goes on hosting: new games start as the host admits them. */
  readonly endAll: Effect.Effect<void>
  /** Opens games until `--open` have free places, as far as the host admits them. */
  readonly keepOpen: Effect.Effect<void>
}

export { hasFreePlace } from "./model.js"
export type { GameChoice, GameWanted, HostSettings, RunningGame } from "./model.js"

export class Host extends Context.Tag("nuggets/Host")<Host, HostService>() {}

const defaultStartRate = { perSecond: 2, burst: 4 }
/** After the system refused something (a full disk): again in 2 s, then twice as long each time, at most every 30 s. */
const defaultRetry: Schedule.Schedule<unknown> = Schedule.exponential("2 seconds").pipe(Schedule.either(Schedule.spaced("30 seconds")))

/** The host's own lines name no game, whichever game's fiber they run in. */
const aboutNoGame = Effect.locallyWith(FiberRef.currentLogAnnotations, HashMap.remove(gameAnnotation))

/** All clients together may start ten times what one may. */
const everyoneRate = (rate: Rate): Rate => ({ perSecond: rate.perSecond * 10, burst: rate.burst * 10 })

/** What reconciling the archive at start did, in a line or two for the log (none when it did nothing; a repair says it alone). */
const reconciledLines = (done: Reconciled): ReadonlyArray<string> => {
  const parts = [
    done.indexed.length > 0 && done.repaired === undefined ? `${plural(done.indexed.length, "recording")} indexed` : "",
    done.interrupted.length > 0 ? `${plural(done.interrupted.length, "game")} interrupted when the host last stopped` : "",
    done.removed.length > 0 ? `${plural(done.removed.length, "game")} whose recording is gone dropped` : ""
  ].filter(Boolean)
  return [
    ...(parts.length > 0 ? [`the archive: ${parts.join("; ")}`] : []),
    ...done.skipped.map((each) => `the archive: ${each.file} skipped — ${each.reason}`)
  ]
}

/** The game a request describes; what it does not say is chosen: `nextMap()`, a random seed. */
const chooseGame = (settings: HostSettings, nextMap: () => HostMap) => {
  const mapNamed = (name: string) =>
    settings.maps.find((each) => each.name === name) ??
      settings.maps.find((each) => each.name.toLowerCase() === name.toLowerCase())
  return (wanted: GameWanted) =>
    Effect.gen(function*() {
      let map: HostMap
      if (wanted.map === undefined) {
        map = nextMap()
      } else {
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
}

/** `launch`, saying a spell of starts the system refused (a full disk) once when it begins, and when a game starts again. */
const sayingRefusals = (launch: (choice: GameChoice) => Effect.Effect<RunningGame, GameRefused>) => {
  let refusing = false
  return (choice: GameChoice) =>
    launch(choice).pipe(
      Effect.tapBoth({
        onFailure: (refused) => {
          if (refused.reason !== "CannotStart" || refusing) return Effect.void
          refusing = true
          return Effect.logWarning(`new games refused: ${refused.message}`)
        },
        onSuccess: () => {
          if (!refusing) return Effect.void
          refusing = false
          return Effect.logInfo("new games start again")
        }
      }),
      aboutNoGame
    )
}

/**
 * The games of `nuggets host`, for as long as the scope lasts: the archive is first brought
 * up to date with the recordings on disk (a game in play when the host last died is
 * `interrupted`), then `--open` games are opened. The host's books (`books.ts`) say what may
 * start; each game is a scoped Layer of its own (`launch.ts`). The scope's end stops every
 * game (see `stopAll`).
 */
export const makeHost = (settings: HostSettings): Effect.Effect<HostService, ArchiveError, Scope.Scope | Udp | ArchiveOwner | Admission | HostMetrics> =>
  Effect.gen(function*() {
    const owner = yield* ArchiveOwner
    const hostScope = yield* Effect.scope
    const done = yield* owner.reconcile(settings.maps.map((each) => ({ name: each.name, mapText: mapText(each.map) })))
    const repaired = repairedLine(done)
    if (repaired !== undefined) yield* Effect.logWarning(repaired)
    yield* Effect.forEach(reconciledLines(done), (line) => Effect.logInfo(line), { discard: true })
    const clock = yield* Effect.clock
    const { admits: admitting } = yield* Admission
    const metrics = yield* HostMetrics
    const counts = Option.getOrElse(yield* Effect.serviceOption(ProcessCounts), () => new Counts())
    const limits: Limits = {
      maxGames: settings.maxGames,
      open: settings.open,
      ports: settings.ports,
      startRate: settings.startRate ?? defaultStartRate,
      everyone: everyoneRate(settings.startRate ?? defaultStartRate)
    }
    // The books are one value, changed only by the functions of books.ts: never by halves.
    let books = openBooks(limits, clock.unsafeCurrentTimeMillis())
    const update = (change: (books: Books) => Books) => void (books = change(books))
    const changes = yield* SubscriptionRef.make(0)
    const changed = SubscriptionRef.update(changes, (version) => version + 1)
    const retry = settings.retry ?? defaultRetry
    const choose = chooseGame(settings, () => {
      const [turn, next] = nextTurn(books, settings.maps.length)
      books = next
      return settings.maps[turn]!
    })
    const owed = yield* makeOwed({
      owner,
      schedule: retry,
      failed: metrics.archiveWriteFailed,
      indexed: () => Effect.sync(() => update(indexedLate)).pipe(Effect.zipRight(changed))
    })
    /** The games' handles, by id, oldest first: what the books count, to reach. */
    const games = new Map<string, RunningGame>()
    /** One fiber a game, watching it to its end. */
    const supervisors = yield* FiberSet.make()

    const launch = yield* launchGame({
      settings,
      admits: admitting,
      metrics,
      counts,
      limits,
      books: () => books,
      update,
      games,
      changed,
      owed,
      // A fiber of the host's: a new game's start must stay interruptible (the host's stop may
      // come in the middle of it), and outlive the game that asked for it.
      keepOpen: Effect.suspend(() => Effect.forkIn(Effect.interruptible(keepOpen), hostScope)).pipe(Effect.asVoid),
      supervisors
    })

    const saying = sayingRefusals(launch)
    /** A start; one that failed gives back the place the books kept for it. */
    const launched = (choice: GameChoice) => saying(choice).pipe(Effect.tapError(() => Effect.sync(() => update(gaveUp))))

    /** Opens the games `--open` misses, as far as the host admits them: whether one could not start (and may later). */
    const openMissing = Effect.suspend(() => {
      const missing = admitting() ? missingOpen(books, limits) : 0
      update((now) => opening(now, missing))
      return Effect.forEach(Array.from({ length: missing }), () =>
        choose({}).pipe(Effect.flatMap(launched), Effect.either), { concurrency: "unbounded" })
    }).pipe(Effect.map((tries) => tries.some((each) => Either.isLeft(each) && each.left.reason === "CannotStart")))

    /**
     * Tries again on the schedule, until `--open` misses no game the system refused. It says
     * it ends in the step that finds so: a refusal meanwhile starts another.
     */
    const reopener = yield* FiberHandle.make<void, never>()
    let reopening = false
    /** A refusal met by another opening while the reopener was trying: it tries again too. */
    let refusedMeanwhile = false
    const reopen = Effect.gen(function*() {
      const driver = yield* Schedule.driver(retry)
      let refused = true
      while (refused && Option.isSome(yield* Effect.option(driver.next(undefined)))) {
        refusedMeanwhile = false
        refused = (yield* openMissing) || refusedMeanwhile
      }
      reopening = false
    })

    /** `--open N`: games with free places, opened until there are N (within `maxGames`); those the system refused, again later. */
    const keepOpen: Effect.Effect<void> = openMissing.pipe(
      Effect.flatMap((refused) => {
        if (!refused) return Effect.void
        if (reopening) return Effect.sync(() => void (refusedMeanwhile = true))
        reopening = true
        return FiberHandle.run(reopener, reopen)
      }),
      Effect.asVoid
    )

    const request = (wanted: GameWanted, client = "this host") =>
      Effect.gen(function*() {
        if (!admitting()) return yield* new GameRefused({ reason: "CannotStart", message: "the host takes no new game now: try again in a moment" })
        // A request for a map there is not is refused before it costs a place in the pace.
        const choice = yield* choose(wanted)
        const admitted = admit(books, limits, clock.unsafeCurrentTimeMillis(), client)
        if (Either.isLeft(admitted)) return yield* new GameRefused(admitted.left)
        books = admitted.right
        return yield* launched(choice)
      })

    // All at once: each game's last words take half a second. Until none is left: a game may
    // have been starting meanwhile.
    const endAll: Effect.Effect<void> = Effect.suspend(() => {
      const left = Array.from(supervisors)
      return left.length === 0 ? Effect.void : Fiber.interruptAll(left).pipe(Effect.zipRight(endAll))
    })
    const stopAll = Effect.sync(() => update((now) => stop(now, clock.unsafeCurrentTimeMillis()))).pipe(Effect.zipRight(endAll))
    yield* Effect.addFinalizer(() => stopAll)

    yield* keepOpen
    const service: HostService = {
      settings,
      running: () => [...games.values()].filter((game) => offered(books, game.id)),
      unarchived: () => [...games.values()],
      startingNow: () => books.starting,
      find: (id) => (offered(books, id) ? games.get(id) : undefined),
      request,
      changes,
      archived: () => books.archived,
      stopAll,
      endAll,
      keepOpen
    }
    metrics.watch(service)
    return service
  })

export const hostLayer = (settings: HostSettings): Layer.Layer<Host, ArchiveError, Udp | ArchiveOwner | Admission | HostMetrics> =>
  Layer.scoped(Host, makeHost(settings))
