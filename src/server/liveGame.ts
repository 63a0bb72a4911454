import { Context, Duration, Effect, FiberSet, Layer, PubSub, type Queue, Random, type Scope } from "effect"
import { PlayerLetters } from "../core/constants.js"
import { dropSilent, endGame, newGame, shutDown } from "../core/game.js"
import type { GameMap } from "../core/map.js"
import { type Rules, rules2019 } from "../core/rules.js"
import type { ClientId, GameState, Request, Viewer } from "../core/state.js"
import type { LogLimits } from "../net/logLimit.js"
import { UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import { Counts, ProcessCounts } from "./counts.js"
import { Dispatcher } from "./dispatch.js"
import { makeIntake } from "./intake.js"
import { keysPerSecond } from "./keyLimit.js"
import { makeLastWords } from "./lastWords.js"
import type { Ending, GameEvent, Life } from "../core/life.js"
import { makeLifetime } from "./life.js"
import type { Peer } from "./peer.js"
import { makeSilenceWatch, silenceStep } from "./silence.js"

export interface LiveGameOptions {
  readonly map: GameMap
  readonly rules?: Rules
  readonly dialect?: Dialect
  /** Whether every UDP send has left: see `Peer.keepsBytes`. */
  readonly allSent?: () => boolean
  /** How far apart the copies of the last words go out. */
  readonly lastWordsSpacing?: Duration.DurationInput
  /** Keys a second each client may press (see `KeyLimit`). */
  readonly keysPerSecond?: number
  /**
   * A player silent this long is treated as having quit: the only defence against a
   * client that dies without a word (or whose address changed); and a game with no one in
   * it this long says so on its feed (`Deserted`). Never, when not given.
   */
  readonly idleTimeout?: Duration.DurationInput
  /** How many log lines each source of datagrams may cause. */
  readonly logLimits?: LogLimits
  /**
   * What a defect (a bug) in handling a message does. `log` (`serve`, `play`): it is
   * logged, the message is lost and the game goes on. `end` (a game of `nuggets host`,
   * beside others): the game ends `Failed`, takes no more messages, and its owner ends it.
   */
  readonly defects?: "log" | "end"
  /** Whether the server takes new players now; always, when not given. */
  readonly admits?: () => boolean
  /** Where the game counts what it takes and refuses (the process's, for `/metrics`); its own, when not given. */
  readonly counts?: Counts
}

/**
 * Told of each event of a game's feed as it happens, in order, within the game's own call;
 * what it gives back (rarely: a log line, a lobby to tell) is run in a fiber of its scope.
 */
export type Follower = (event: GameEvent) => Effect.Effect<void> | void

/**
 * One game being played, as a service: every way in (UDP, the web) hands it messages,
 * and what happens in it goes out on one feed, which the recorder, the web's watchers and
 * the host's books follow. Its life is one state (`life`): playing, then ended once.
 */
export interface LiveGame {
  /**
   * The one way in: handles a message from `peer` before returning (the game's answer is
   * sent). What is left to do (a log line, a key held back by the key limit) comes back as
   * an Effect for the caller to run; a plain move, the common case, leaves nothing.
   */
  readonly receive: (peer: Peer, data: Uint8Array) => Effect.Effect<void> | undefined
  readonly state: () => GameState
  /** The DISPLAY datagram `viewer` would get now. Shared: do not change it. */
  readonly display: (viewer: Viewer) => Uint8Array
  /** Forgets a client that can never be reached again (a closed page): nothing of it is kept. */
  readonly forget: (client: ClientId) => void
  /**
   * Follows the game's feed for the scope: `follower` is told of each event from now on,
   * in the game's own call, so that a keystroke wakes no fiber (the recorder, the watchers
   * and the books each woken per key were more than half of a host's CPU at 400 games).
   */
  readonly follow: (follower: Follower) => Effect.Effect<void, never, Scope.Scope>
  /** The game's feed from now on as a queue, for the scope, to be taken in a fiber. It closes with the game. */
  readonly events: Effect.Effect<Queue.Dequeue<GameEvent>, never, Scope.Scope>
  readonly life: () => Life
  /** Succeeds once the game has ended, with how. */
  readonly ended: Effect.Effect<Ending>
  /** Tells every client to quit (the game ends `ShutDown`, unless it had ended), once the last words are out. */
  readonly shutDown: Effect.Effect<void>
  /** Ends the game now: everyone gets GAMEOVER with the standings so far; succeeds once those are all out. */
  readonly endGame: Effect.Effect<void>
  /** `shutDown`, done by its host's operator: the recording says so. */
  readonly endByOperator: Effect.Effect<void>
  /** Succeeds once every repeat of the last words (GAMEOVER, QUIT) has been sent. */
  readonly lastWordsSent: Effect.Effect<void>
}

export const LiveGame = Context.GenericTag<LiveGame>("nuggets/LiveGame")

/**
 * GAMEOVER, and a QUIT the server sends of its own accord, go out this many times in all,
 * this far apart: a client must not miss the end for one lost datagram.
 */
export const lastWordsCopies = 3
export const defaultLastWordsSpacing = Duration.millis(250)

const quitKey: Request = { _tag: "Key", key: "Q" }
const encoder = new TextEncoder()

/** `receive`, and what it leaves to do, as one Effect: for callers in a fiber already. */
export const receiveNow = (game: LiveGame, peer: Peer, data: Uint8Array | string): Effect.Effect<void> =>
  Effect.suspend(() => game.receive(peer, typeof data === "string" ? encoder.encode(data) : data) ?? Effect.void)

/**
 * The game as the server runs it (see `LiveGame`): drawn from the Random service of the
 * fiber that makes it (so a seed replays a game); what it runs later (held keys, repeated
 * last words, the idle clock) runs in fibers of this scope, and the feed closes with it.
 */
export const makeLiveGame = (options: LiveGameOptions): Effect.Effect<LiveGame, never, Scope.Scope> =>
  Effect.gen(function*() {
    const dialect = options.dialect ?? "2019"
    const lifetime = yield* makeLifetime()
    const feed = yield* Effect.acquireRelease(PubSub.unbounded<GameEvent>(), PubSub.shutdown)
    const followers = new Set<(event: GameEvent) => void>()
    /** The one way out of the feed: to its queues, and to its followers in order. */
    const publish = (event: GameEvent) => {
      feed.unsafeOffer(event)
      for (const told of followers) told(event)
    }
    const lastWords = yield* makeLastWords({ copies: lastWordsCopies, spacing: options.lastWordsSpacing ?? defaultLastWordsSpacing })
    const end = (ending: Ending) => {
      if (lifetime.end(ending)) publish({ _tag: "Ended", ending })
    }
    const dispatcher = new Dispatcher(yield* newGame(options.map, options.rules ?? rules2019), {
      dialect,
      allSent: options.allSent ?? (() => true),
      lastWords,
      took: (event) => {
        publish(event)
        const state = event.transition.state
        // The last player may leave with every letter used: the game ends, the gold still there.
        if (state.over) end({ _tag: state.goldRemaining === 0 ? "Over" : "Stopped", state })
      }
    })
    const playing = () => lifetime.now()._tag === "Playing"
    const intake = yield* makeIntake(dispatcher, {
      dialect,
      keysPerSecond: options.keysPerSecond ?? keysPerSecond,
      logLimits: options.logLimits,
      lastWords,
      open: playing,
      admits: options.admits ?? (() => true),
      counts: options.counts ?? new Counts(),
      defects: options.defects ?? "log",
      failed: (defect) => end({ _tag: "Failed", defect, state: dispatcher.state })
    })

    const limit = options.idleTimeout === undefined ? undefined : Duration.toMillis(options.idleTimeout)
    const silence = limit === undefined ? undefined : makeSilenceWatch(limit)
    if (limit !== undefined && silence !== undefined) {
      // Players silent for the idle timeout are treated as having quit, as if they had sent KEY Q.
      const stepIdleClock = Effect.suspend(() => {
        if (!playing()) return Effect.void
        const state = dispatcher.state
        const { deserted, silent } = silence.step(
          state.players.filter((each) => each.active).map((each) => each.client),
          state.spectator !== undefined
        )
        if (deserted) publish({ _tag: "Deserted" })
        return Effect.forEach(silent, (client) => {
          const transition = dropSilent(dispatcher.state, client)
          const peer = dispatcher.peerOf(client)
          if (transition === undefined || peer === undefined) return Effect.void
          dispatcher.took(peer, quitKey, transition)
          const letter = transition.changes.left.map((index) => PlayerLetters[index]).join("")
          return Effect.logInfo(`${client}: player ${letter} silent for ${Duration.format(Duration.millis(limit))}: counted as having quit`)
        }, { discard: true })
      })
      yield* Effect.sleep(silenceStep(limit)).pipe(Effect.zipRight(stepIdleClock), Effect.forever, Effect.forkScoped)
    }

    /** Every client told to quit, and the game ended so, unless it had ended with the standings; once the last words are out. */
    const tellToQuit = (byOperator: boolean) =>
      Effect.suspend(() => {
        const life = lifetime.now()._tag
        if (life === "Over" || life === "Stopped") return Effect.void
        dispatcher.deliver(shutDown(dispatcher.state))
        end(byOperator ? { _tag: "ShutDown", state: dispatcher.state, byOperator } : { _tag: "ShutDown", state: dispatcher.state })
        return Effect.logInfo(byOperator ? "ended by the host's operator: every client was told to quit" : "shutting down: every client was told to quit").pipe(
          Effect.zipRight(lastWords.allSaid)
        )
      })

    return {
      receive: (peer, data) => {
        const life = lifetime.now()
        if (life._tag === "Failed") return undefined
        silence?.heard(peer.id)
        if (life._tag !== "Playing") {
          dispatcher.remind(peer)
          return undefined
        }
        return intake.take(peer, data)
      },
      state: () => dispatcher.state,
      display: (viewer) => dispatcher.display(viewer),
      forget: (client) => {
        dispatcher.forget(client)
        intake.forget(client)
      },
      follow: (follower) =>
        Effect.gen(function*() {
          const run = yield* FiberSet.makeRuntime<never, void, never>()
          const told = (event: GameEvent) => {
            const more = follower(event)
            if (more !== undefined) run(more)
          }
          yield* Effect.acquireRelease(Effect.sync(() => void followers.add(told)), () => Effect.sync(() => void followers.delete(told)))
        }),
      events: PubSub.subscribe(feed),
      life: lifetime.now,
      ended: lifetime.ended,
      shutDown: tellToQuit(false),
      endByOperator: tellToQuit(true),
      endGame: Effect.suspend(() => {
        if (!playing()) return lastWords.allSaid
        dispatcher.deliver(endGame(dispatcher.state))
        end({ _tag: "Stopped", state: dispatcher.state })
        return Effect.logInfo("the game was ended early: everyone got the standings").pipe(Effect.zipRight(lastWords.allSaid))
      }),
      lastWordsSent: lastWords.allSaid
    }
  })

/** What a served game is made of: its options, and the seed that draws the game. */
export interface ServedGame extends Omit<LiveGameOptions, "allSent"> {
  readonly seed: number
}

/**
 * The game of a program that serves over UDP: seeded by `game.seed`, and sharing its
 * DISPLAY buffers with the socket's sends (see `Peer.keepsBytes`).
 */
export const liveGameLayer = (game: ServedGame): Layer.Layer<LiveGame, never, UdpSocket> =>
  Layer.scoped(
    LiveGame,
    Effect.gen(function*() {
      const socket = yield* UdpSocket
      const counts = yield* Effect.serviceOption(ProcessCounts)
      return yield* makeLiveGame({ ...game, allSent: socket.allSent, ...(counts._tag === "Some" ? { counts: counts.value } : {}) })
    }).pipe(
      Effect.withRandom(Random.make(game.seed))
    )
  )
