import { Effect, Either, FiberRef, FiberSet, LogLevel, Schedule, type Scope } from "effect"
import { PlayerLetters } from "../core/constants.js"
import { applyRequest } from "../core/game.js"
import { NotAdmitting, type Refusal } from "../core/refusals.js"
import type { Request, Transition } from "../core/state.js"
import { type Dialect, malformedMessage, nuggetCount, refusalMessage, refusalText } from "../protocol/dialect.js"
import { decodeClientMessage, encodeServerMessage, excerpt } from "../protocol/messages.js"
import { defaultLogLimits, type LogLimits, makeLogLimiter } from "../net/logLimit.js"
import type { Counts } from "./counts.js"
import type { Dispatcher } from "./dispatch.js"
import { KeyLimit } from "./keyLimit.js"
import type { LastWords } from "./lastWords.js"
import type { Peer } from "./peer.js"

export interface IntakeOptions {
  readonly dialect: Dialect
  /** Keys a second each client may press (see `KeyLimit`). */
  readonly keysPerSecond: number
  /** How many log lines each source of datagrams may cause. */
  readonly logLimits?: LogLimits | undefined
  readonly lastWords: LastWords
  /** Whether the game still takes messages: false once it ended or a defect stopped it. */
  readonly open: () => boolean
  /** Whether the server takes new players now (a closing server, or one that lost its place in a fleet, does not). */
  readonly admits: () => boolean
  /**
   * What a defect (a bug) in handling a message does. `log`: it is logged, the message is
   * lost and the game goes on, as one bad message must not end it for everyone. `end`: it
   * is handed to `failed`, which stops the game.
   */
  readonly defects: "log" | "end"
  readonly failed: (defect: string) => void
  /** Where what it takes and refuses is counted. */
  readonly counts: Counts
}

/** How the game takes messages (see `makeIntake`). */
export interface Intake {
  /**
   * Handles one message from `peer` before returning: the game's answer is sent. What is
   * left to do (a log line, a key held back by the key limit) comes back as an Effect for
   * the caller to run; a plain move, the common case, leaves nothing.
   */
  readonly take: (peer: Peer, data: Uint8Array) => Effect.Effect<void> | undefined
  /** A client gone for good: its key limit is forgotten. */
  readonly forget: (client: string) => void
}

const letterOf = (index: number) => PlayerLetters[index]!
const encoder = new TextEncoder()
/** Peers whose joins are counted at most: a flood from new addresses forgets the oldest. */
const maxJoiners = 4096
/** Times the answer to a first join is given again for nothing, to a client that lost it. */
const freeRepeats = 2

/** A defect in words, for the log and the recording: its message, one line. */
const defectWords = (defect: unknown): string =>
  (defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect)).split("\n")[0]!.slice(0, 500)

/**
 * The way into a game: each datagram decoded, held to the key limit, handed to the core,
 * and its transition to the dispatcher; a refusal answered in the dialect's words. Log
 * lines caused by datagrams are rate-limited per source (see `logLimit.ts`), so that no one
 * can fill the host's disk with garbage; a key that waits its turn runs later in a fiber
 * of this scope.
 */
export const makeIntake = (dispatcher: Dispatcher, options: IntakeOptions): Effect.Effect<Intake, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { counts, dialect, lastWords } = options
    const limiter = makeLogLimiter(options.logLimits ?? defaultLogLimits)
    const clock = yield* Effect.clock
    // Fixed for the game: lines below it are not even built (a flood of keys from strangers is cheap).
    const debugging = (yield* FiberRef.get(FiberRef.currentMinimumLogLevel)).ordinal <= LogLevel.Debug.ordinal
    /** Keys waiting for their turn under the key limit, each in a fiber of the game's scope. */
    const later = yield* FiberSet.makeRuntime<never>()
    const keyLimit = new KeyLimit(
      options.keysPerSecond,
      () => clock.unsafeCurrentTimeMillis(),
      (ms, run) => later(Effect.sleep(ms).pipe(Effect.zipRight(Effect.sync(run))))
    )
    // The counts of log lines held back, once their window ends, even when the flood has stopped.
    yield* Effect.sync(() => limiter.flush(clock.unsafeCurrentTimeMillis())).pipe(
      Effect.flatMap((lines) => Effect.forEach(lines, (line) => Effect.logWarning(line), { discard: true })),
      Effect.repeat(Schedule.spaced(defaultLogLimits.window)),
      Effect.forkScoped
    )

    /** A line caused by a datagram from `source`: a few per minute, then a count. */
    const limited = (source: string, line: () => Effect.Effect<void>): Effect.Effect<void> | undefined => {
      // Decided before any Effect runs: a flood's datagrams must cost next to nothing.
      const { held, log } = limiter.admit(source, clock.unsafeCurrentTimeMillis())
      if (!log && held.length === 0) return undefined
      const counts = Effect.forEach(held, (each) => Effect.logWarning(each), { discard: true })
      return log ? Effect.zipRight(counts, line()) : counts
    }

    /**
     * Bytes each peer may still be sent in answer to a PLAY or a SPECTATE, beyond the answer
     * to its first: what it has sent since, less what its answers cost. A flood of repeated
     * joins from one address (a forged one, perhaps: the answers would go to someone else)
     * draws back no more than it sends; a join it cannot pay for is not taken at all, as a
     * key over the key limit is not. A join taken costs at least its DISPLAY. The first
     * answer may be asked for twice more, for nothing: on a network that lost it, a client
     * asks again, and is answered in full.
     */
    const joinCredit = new Map<string, number>()
    const { cols, rows } = dispatcher.state.map
    const joinTakenCost = rows * (cols + 1) + "DISPLAY\n".length
    /** Whether a join from `peer` whose answer costs `cost` may be answered; it is charged if so. */
    const payJoin = (peer: Peer, data: Uint8Array, cost: number): boolean => {
      const credit = joinCredit.get(peer.id)
      if (credit === undefined) {
        if (joinCredit.size >= maxJoiners) joinCredit.delete(joinCredit.keys().next().value!)
        joinCredit.set(peer.id, freeRepeats * joinTakenCost)
        return true
      }
      const now = credit + data.length
      joinCredit.set(peer.id, now >= cost ? now - cost : now)
      return now >= cost
    }
    const notPaid = (peer: Peer, request: Request) => {
      counts.refused.limited++
      return limited(peer.id, () => Effect.logInfo(`${peer.id}: ${request._tag.toUpperCase()} again, not taken: no more bytes back than it sends`))
    }

    const refused = (peer: Peer, request: Request, refusal: Refusal, data: Uint8Array) => {
      const quit = request._tag === "Key" && request.key === "Q" && refusal._tag === "NotJoined"
        ? lastWords.quitOf(peer.id)
        : undefined
      // Its QUIT was lost, so it asks again: the same QUIT, as acknowledgements go.
      if (quit !== undefined) {
        peer.send(quit)
        return debugging ? Effect.logDebug(`${peer.id}: KEY Q again: told to quit again`) : undefined
      }
      counts.refused.refused++
      const answer = encoder.encode(encodeServerMessage(refusalMessage(dialect, refusal)))
      if (request._tag !== "Key" && !payJoin(peer, data, answer.length)) return notPaid(peer, request)
      peer.send(answer)
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

    /** One message handled to the end, a defect caught as `defects` says; what is left to do comes back. */
    const guarded = (peer: Peer, data: Uint8Array, admitted: boolean): Effect.Effect<void> | undefined => {
      try {
        return take(peer, data, admitted)
      } catch (defect) {
        if (options.defects === "log") return Effect.logError(`${peer.id}: internal error while handling a message`, defect)
        options.failed(defectWords(defect))
        return undefined
      }
    }

    const take = (peer: Peer, data: Uint8Array, admitted: boolean): Effect.Effect<void> | undefined => {
      const decoded = decodeClientMessage(data)
      if (Either.isLeft(decoded)) {
        const error = decoded.left
        // Only a malformed PLAY/KEY/SPECTATE is answered: answering anything else could
        // start an endless exchange with a peer that also answers what it does not know.
        counts.refused.malformed++
        if (error.kind === "malformed") dispatcher.send(peer, malformedMessage(dialect, error.reason))
        return limited(peer.id, () => Effect.logWarning(`${peer.id}: ignored message of ${data.length} bytes: ${error.reason}`))
      }
      const request = decoded.right
      if (request._tag === "Key" && !admitted) {
        const verdict = keyLimit.press(peer.id, () => {
          if (!options.open()) return
          const then = guarded(peer, data, true)
          if (then !== undefined) later(then)
        })
        if (verdict === "later") return undefined
        if (verdict === "dropped") {
          counts.refused.limited++
          return Effect.logDebug(`${peer.id}: KEY ${excerpt(request.key)} dropped: over ${options.keysPerSecond} keys a second`)
        }
      }
      if (request._tag === "Play" && !options.admits()) return refused(peer, request, new NotAdmitting(), data)
      const result = applyRequest(dispatcher.state, peer.id, request)
      if (Either.isLeft(result)) return refused(peer, request, result.left, data)
      if (request._tag !== "Key" && !payJoin(peer, data, joinTakenCost)) return notPaid(peer, request)
      if (request._tag === "Key") counts.keys++
      dispatcher.took(peer, request, result.right)
      return logOf(peer, request, result.right)
    }

    return {
      take: (peer, data) => guarded(peer, data, false),
      forget: (client) => keyLimit.forget(client)
    }
  })
