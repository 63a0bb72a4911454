/**
 * The game host: the one owner of a game's state and of every client's peer. Longer than
 * most files (about 380 lines) because `makeLiveGame` is one closure over that state (the
 * peers, the key limit, last words, who was heard); its parts with a life of their own live
 * beside it (keyLimit.ts, lastWords.ts, silence.ts, views.ts).
 */
import { Context, Deferred, Duration, Effect, Either, Exit, FiberRef, FiberSet, Layer, LogLevel, Random, Schedule, type Scope } from "effect"
import { PlayerLetters } from "../core/constants.js"
import { applyRequest, dropSilent, endGame, newGame, shutDown } from "../core/game.js"
import type { Refusal } from "../core/refusals.js"
import { type Rules, rules2019 } from "../core/rules.js"
import type { GameMap } from "../core/map.js"
import {
  type ClientId,
  type Envelope,
  type GameState,
  type Handled,
  type Request,
  standings,
  type Transition,
  type Viewer
} from "../core/state.js"
import {
  type Dialect,
  gameOverMessage,
  malformedMessage,
  nuggetCount,
  refusalMessage,
  refusalText,
  summaryText
} from "../protocol/dialect.js"
import { decodeClientMessage, encodeServerMessage, excerpt, type ServerMessage } from "../protocol/messages.js"
import { noticeMessage } from "../protocol/notices.js"
import { defaultLogLimits, type LogLimits, makeLogLimiter } from "../net/logLimit.js"
import { UdpSocket } from "../net/udp.js"
import { KeyLimit, keysPerSecond } from "./keyLimit.js"
import { makeLastWords } from "./lastWords.js"
import type { Peer } from "./peer.js"
import { makeSilenceWatch, silenceStep } from "./silence.js"
import { DisplayBuffers } from "./views.js"

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
   * client that dies without a word (or whose address changed). Never, when not given.
   */
  readonly idleTimeout?: Duration.DurationInput
  /** How many log lines each source of datagrams may cause. */
  readonly logLimits?: LogLimits
  /**
   * What a defect (a bug) in handling a message does. `log` (`serve`, `play`): it is
   * logged, the message is lost and the game goes on, as one bad message must not end it
   * for everyone. `end` (a game of `nuggets host`, beside others): the game takes no more
   * messages, and `failed` says why, for its owner to end it (see `failure`).
   */
  readonly defects?: "log" | "end"
}

export interface GameResult {
  readonly summary: string
}

/**
 * The game as a service: the one game this program hosts, which every way in (UDP, the
 * web) hands its messages to, and the recorder and the web's watchers listen to.
 */
export interface LiveGame {
  /**
   * Handles one message from `peer` before returning: the game's answer is sent. What is
   * left to do (a log line, a key held back by the key limit) comes back as an Effect for
   * the caller to run; a plain move, the common case, leaves nothing.
   */
  readonly receive: (peer: Peer, data: Uint8Array) => Effect.Effect<void> | undefined
  /** `receive`, and what it leaves to do, as one Effect: for callers in a fiber already. */
  readonly handle: (peer: Peer, data: Uint8Array) => Effect.Effect<void>
  readonly state: () => GameState
  /** The summary of the game as it stands (or as it ended): a line per player. */
  readonly summary: () => string
  /** The DISPLAY datagram `viewer` would get now. Shared: do not change it. */
  readonly display: (viewer: Viewer) => Uint8Array
  /** Forgets a client that can never be reached again (a closed page): nothing of it is kept. */
  readonly forget: (client: ClientId) => void
  /** Calls `listener` after each request the game took; returns the way to stop. */
  readonly onHandled: (listener: (handled: Handled) => void) => () => void
  /** Tells every client to quit, and ends the game once the last words are out. */
  readonly shutDown: Effect.Effect<void>
  /** Ends the game now: everyone gets GAMEOVER with the standings so far; succeeds once those are all out. */
  readonly endGame: Effect.Effect<void>
  /** Succeeds once the game is over, with its summary. */
  readonly finished: Effect.Effect<GameResult>
  /** Succeeds once every repeat of the last words (GAMEOVER, QUIT) has been sent. */
  readonly lastWordsSent: Effect.Effect<void>
  /** With `defects: "end"`: succeeds, with the defect in words, once one has stopped the game; never otherwise. */
  readonly failed: Effect.Effect<string>
  /** The defect that stopped the game, in words, if one did. */
  readonly failure: () => string | undefined
}

export const LiveGame = Context.GenericTag<LiveGame>("nuggets/LiveGame")

/**
 * GAMEOVER, and a QUIT the server sends of its own accord, go out this many times in all,
 * this far apart: a client must not miss the end for one lost datagram.
 */
export const lastWordsCopies = 3
export const defaultLastWordsSpacing = Duration.millis(250)

const letterOf = (index: number) => PlayerLetters[index]!

/** What the server says of its own accord at the end: GAMEOVER, or a QUIT no one asked for. */
const isLastWord = ({ notice }: Envelope) =>
  notice._tag === "GameOver" ||
  (notice._tag === "Quit" && (notice.reason === "ShutDown" || notice.reason === "SpectatorReplaced" || notice.reason === "Silent"))

const quitKey: Request = { _tag: "Key", key: "Q" }

/** A defect in words, for the log and the recording: its message, one line. */
const defectWords = (defect: unknown): string =>
  (defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)).split("\n")[0]!.slice(0, 500)

/**
 * The game as the server runs it: messages from any peer are decoded, handed to the core,
 * and the core's notices sent out, each DISPLAY from the viewer's patched buffer. The game
 * is drawn from the Random service of the fiber that makes it (so a seed replays a game),
 * and what it runs later (paced keys, repeated last words) runs with that fiber's services.
 */
export const makeLiveGame = (options: LiveGameOptions): Effect.Effect<LiveGame, never, Scope.Scope> =>
  Effect.gen(function*() {
    const dialect = options.dialect ?? "2019"
    const allSent = options.allSent ?? (() => true)
    let state = yield* newGame(options.map, options.rules ?? rules2019)
    const buffers = new DisplayBuffers(state)
    /** Where each client that joined is reached. */
    const peers = new Map<ClientId, Peer>()
    const listeners = new Set<(handled: Handled) => void>()
    const finished = yield* Deferred.make<GameResult>()
    const failed = yield* Deferred.make<string>()
    /** The defect that stopped the game (`defects: "end"`): no message is taken after it. */
    let failure: string | undefined
    const lastWords = yield* makeLastWords({
      copies: lastWordsCopies,
      spacing: options.lastWordsSpacing ?? defaultLastWordsSpacing
    })
    const idleLimit = options.idleTimeout === undefined ? undefined : Duration.toMillis(options.idleTimeout)
    const silence = idleLimit === undefined ? undefined : makeSilenceWatch(idleLimit)
    const limiter = makeLogLimiter(options.logLimits ?? defaultLogLimits)
    const clock = yield* Effect.clock
    // Fixed for the game: lines below it are not even built (a flood of keys from strangers is cheap).
    const debugging = (yield* FiberRef.get(FiberRef.currentMinimumLogLevel)).ordinal <= LogLevel.Debug.ordinal
    /** The GAMEOVER as sent, to answer whoever asks after the end. */
    let gameOverText: string | undefined
    const keyRate = options.keysPerSecond ?? keysPerSecond
    /** Keys waiting for their turn under the key limit, each in a fiber of the host's scope. */
    const later = yield* FiberSet.makeRuntime<never>()
    const keyLimit = new KeyLimit(
      keyRate,
      () => clock.unsafeCurrentTimeMillis(),
      (ms, run) => later(Effect.sleep(ms).pipe(Effect.zipRight(Effect.sync(run))))
    )

    let finalSummary: string | undefined
    const summaryNow = () => state.over ? finalSummary ??= summaryText(standings(state)) : summaryText(standings(state))

    const datagramFor = ({ notice, viewer }: Envelope, peer: Peer): Uint8Array | string => {
      switch (notice._tag) {
        case "Display": {
          const display = buffers.display(viewer)
          return peer.keepsBytes ? display.slice() : display
        }
        case "GameOver":
          return gameOverText ??= encodeServerMessage(gameOverMessage(dialect, summaryNow()))
        default:
          return encodeServerMessage(noticeMessage(notice))
      }
    }

    /** Makes the transition's state current and sends its notices. */
    const deliver = (transition: Transition) => {
      if (transition.state === state && transition.notices.length === 0) return
      state = transition.state
      // In place when every earlier DISPLAY has left: no copy, no allocation per keystroke.
      buffers.advance(transition, { reuse: allSent() })
      for (const envelope of transition.notices) {
        const peer = peers.get(envelope.to)
        if (!peer) continue
        const datagram = datagramFor(envelope, peer)
        const { notice } = envelope
        if (notice._tag === "Quit" || notice._tag === "GameOver") {
          lastWords.say(peer, datagram, { repeat: isLastWord(envelope), quit: notice._tag === "Quit" })
        } else {
          peer.send(datagram)
        }
      }
      if (state.over) Deferred.unsafeDone(finished, Exit.succeed({ summary: summaryNow() }))
    }

    const send = (peer: Peer, message: ServerMessage) => peer.send(encodeServerMessage(message))

    const took = (peer: Peer, request: Request, transition: Transition) => {
      if (request._tag !== "Key") {
        peers.set(peer.id, peer)
        lastWords.admitted(peer.id)
      }
      deliver(transition)
      for (const listener of listeners) listener({ client: peer.id, request, transition })
    }

    /**
     * A line caused by a datagram, at `level`: each source gets a few per minute, then a
     * count (see `logLimit.ts`), so that no one can fill the host's disk with garbage.
     */
    const limited = (source: string, line: () => Effect.Effect<void>): Effect.Effect<void> | undefined => {
      // Decided before any Effect runs: a flood's datagrams must cost next to nothing.
      const { held, log } = limiter.admit(source, clock.unsafeCurrentTimeMillis())
      if (!log && held.length === 0) return undefined
      const counts = Effect.forEach(held, (each) => Effect.logWarning(each), { discard: true })
      return log ? Effect.zipRight(counts, line()) : counts
    }

    const refused = (peer: Peer, request: Request, refusal: Refusal) => {
      const quit = request._tag === "Key" && request.key === "Q" && refusal._tag === "NotJoined"
        ? lastWords.quitOf(peer.id)
        : undefined
      // Its QUIT was lost, so it asks again: the same QUIT, as acknowledgements go.
      if (quit !== undefined) {
        peer.send(quit)
        return debugging ? Effect.logDebug(`${peer.id}: KEY Q again: told to quit again`) : undefined
      }
      send(peer, refusalMessage(dialect, refusal))
      if (request._tag === "Key" && !debugging) return undefined
      const what = request._tag === "Key" ? `KEY ${excerpt(request.key)}` : request._tag.toUpperCase()
      const line = `${peer.id}: ${what} refused: ${refusalText(refusal)}`
      if (request._tag === "Key") return Effect.logDebug(line)
      return limited(peer.id, () => Effect.logInfo(line))
    }

    /** What the log says of a request the game took; nothing for a plain move, the common case. */
    const logOf = (peer: Peer, request: Request, transition: Transition): Effect.Effect<void> | undefined => {
      switch (request._tag) {
        case "Play": {
          const player = transition.state.players.find((each) => each.client === peer.id && each.active)
          return player && Effect.logInfo(`${peer.id}: joined as ${player.letter} (${excerpt(player.name)})`)
        }
        case "Spectate":
          return limited(peer.id, () => Effect.logInfo(`${peer.id}: spectating`))
        case "Key": {
          if (request.key === "Q") return Effect.logInfo(`${peer.id}: quit`)
          const { thefts } = transition.changes
          return thefts.length === 0 ? undefined : Effect.forEach(thefts, ({ nuggets, thief, victim }) =>
            Effect.logInfo(`${letterOf(thief)} took ${nuggetCount(nuggets)} from ${letterOf(victim)}`))
        }
      }
    }

    /** One message: decoded and handed to the core. What to log, if anything, comes back. */
    const handle = (peer: Peer, data: Uint8Array, admitted = false): Effect.Effect<void> | undefined => {
      const decoded = decodeClientMessage(data)
      if (Either.isLeft(decoded)) {
        const error = decoded.left
        // Only a malformed PLAY/KEY/SPECTATE is answered: answering anything else could
        // start an endless exchange with a peer that also answers what it does not know.
        if (error.kind === "malformed") send(peer, malformedMessage(dialect, error.reason))
        return limited(peer.id, () => Effect.logWarning(`${peer.id}: ignored message of ${data.length} bytes: ${error.reason}`))
      }
      const request = decoded.right
      if (request._tag === "Key" && !admitted) {
        const verdict = keyLimit.press(peer.id, () => {
          if (state.over) return
          const then = handleNow(peer, data, true)
          if (then !== undefined) later(then)
        })
        if (verdict === "later") return undefined
        if (verdict === "dropped") return Effect.logDebug(`${peer.id}: KEY ${excerpt(request.key)} dropped: over ${keyRate} keys a second`)
      }
      const result = applyRequest(state, peer.id, request)
      if (Either.isLeft(result)) return refused(peer, request, result.left)
      took(peer, request, result.right)
      return logOf(peer, request, result.right)
    }

    /** Handles one message to the end; what is left to do (logging) comes back. */
    const handleNow = (peer: Peer, data: Uint8Array, admitted = false): Effect.Effect<void> | undefined => {
      try {
        return handle(peer, data, admitted)
      } catch (defect) {
        if (options.defects === "end") {
          failure ??= defectWords(defect)
          Deferred.unsafeDone(failed, Exit.succeed(failure))
          return undefined
        }
        // A bug in handling one message must not end the game for everyone.
        return Effect.logError(`${peer.id}: internal error while handling a message`, defect)
      }
    }

    /** Players silent for the idle timeout are treated as having quit, as if they had sent KEY Q. */
    const dropTheSilent = Effect.suspend(() => {
      if (silence === undefined || state.over) return Effect.void
      const playing = state.players.filter((each) => each.active).map((each) => each.client)
      return Effect.forEach(silence.step(playing), (client) => {
        const transition = dropSilent(state, client)
        const peer = peers.get(client)
        if (transition === undefined || peer === undefined) return Effect.void
        took(peer, quitKey, transition)
        const letter = transition.changes.left.map(letterOf).join("")
        return Effect.logInfo(`${client}: player ${letter} silent for ${Duration.format(Duration.millis(idleLimit!))}: counted as having quit`)
      }, { discard: true })
    })
    if (idleLimit !== undefined) yield* dropTheSilent.pipe(Effect.repeat(Schedule.spaced(silenceStep(idleLimit))), Effect.forkScoped)
    // The counts of log lines held back, once their window ends, even when the flood has stopped.
    yield* Effect.sync(() => limiter.flush(clock.unsafeCurrentTimeMillis())).pipe(
      Effect.flatMap((lines) => Effect.forEach(lines, (line) => Effect.logWarning(line), { discard: true })),
      Effect.repeat(Schedule.spaced(defaultLogLimits.window)),
      Effect.forkScoped
    )

    const receive = (peer: Peer, data: Uint8Array): Effect.Effect<void> | undefined => {
      if (failure !== undefined) return undefined
      silence?.heard(peer.id)
      // After the end, a client of this game that asks anything learns how it ended.
      if (state.over) {
        if (gameOverText !== undefined && peers.has(peer.id)) peer.send(gameOverText)
        return undefined
      }
      return handleNow(peer, data)
    }

    return {
      receive,
      handle: (peer, data) => Effect.suspend(() => receive(peer, data) ?? Effect.void),
      state: () => state,
      summary: summaryNow,
      display: (viewer) => buffers.display(viewer),
      forget: (client) => {
        peers.delete(client)
        keyLimit.forget(client)
      },
      onHandled: (listener) => {
        listeners.add(listener)
        return () => listeners.delete(listener)
      },
      shutDown: Effect.suspend(() => {
        if (state.over) return Effect.void
        deliver(shutDown(state))
        return Effect.logInfo("shutting down: every client was told to quit").pipe(Effect.zipRight(lastWords.allSaid))
      }),
      endGame: Effect.suspend(() => {
        if (state.over) return lastWords.allSaid
        deliver(endGame(state))
        return Effect.logInfo("the game was ended early: everyone got the standings").pipe(Effect.zipRight(lastWords.allSaid))
      }),
      finished: Deferred.await(finished),
      lastWordsSent: lastWords.allSaid,
      failed: Deferred.await(failed),
      failure: () => failure
    }
  })

/** What a hosted game is made of: the host's options, and the seed that draws the game. */
export interface ServedGame extends Omit<LiveGameOptions, "allSent"> {
  readonly seed: number
}

/**
 * The game host of a program that serves over UDP: seeded by `game.seed`, and sharing its
 * DISPLAY buffers with the socket's sends (see `Peer.keepsBytes`).
 */
export const liveGameLayer = (game: ServedGame): Layer.Layer<LiveGame, never, UdpSocket> =>
  Layer.scoped(
    LiveGame,
    Effect.flatMap(UdpSocket, (socket) => makeLiveGame({ ...game, allSent: socket.allSent })).pipe(
      Effect.withRandom(Random.make(game.seed))
    )
  )
