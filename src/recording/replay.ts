import { Data, Effect, Either, Random, Schema } from "effect"
import { applyRequest, newGame } from "../core/game.js"
import { type ClientId, type GameState, standings, type Transition } from "../core/state.js"
import { parseMap } from "../core/map.js"
import { refusalText, summaryText } from "../protocol/dialect.js"
import type { GameEnd } from "../protocol/endings.js"
import { decodeClientMessage } from "../protocol/messages.js"
import { version } from "../version.js"
import { type Entry, isCheckpoint, isMessage, rankedStandings, type Recording, Standing, stateDigest } from "./format.js"

/** Where a replay left the recorded game: the first difference, in words. */
export class ReplayMismatch extends Data.TaggedError("ReplayMismatch")<{ readonly message: string }> {}

/** One message of the recording, applied again. */
export interface ReplayedMove {
  /** 1-based: move n of the recording's messages. */
  readonly move: number
  readonly t: number
  readonly client: ClientId
  readonly transition: Transition
}

export interface ReplayResult {
  readonly state: GameState
  readonly moves: number
  readonly checkpoints: number
  /** How the recorded game ended (its summary matched), or undefined when the recording stops before that. */
  readonly ended: GameEnd | undefined
}

const sameStandings = Schema.equivalence(Schema.Array(Standing))

/** The recording's own client number, as the core names clients in a replay. */
export const replayClient = (client: number): ClientId => `client-${client}`

/** How many messages the recording holds. */
export const moveCount = (recording: Recording): number => recording.entries.filter(isMessage).length

/**
 * Plays the recorded game again with the real core: the same map, rules and seed, the same
 * messages in the same order. Every checkpoint and the final summary and standings are
 * compared; the first difference fails the replay. `onMove` sees each move as it is replayed.
 */
export const replayRecording = <E = never, R = never>(
  recording: Recording,
  onMove: (move: ReplayedMove, state: GameState) => Effect.Effect<void, E, R> = () => Effect.void
): Effect.Effect<ReplayResult, ReplayMismatch | E, R> =>
  Effect.gen(function*() {
    const { header } = recording
    if (header.program !== version) {
      return yield* new ReplayMismatch({
        message: `recorded by nuggets ${header.program}; this is nuggets ${version}, which may play it differently`
      })
    }
    const map = yield* Either.mapLeft(parseMap(header.map), (error) => new ReplayMismatch({ message: `the recorded map: ${error.message}` }))
    let state = yield* newGame(map, header.rules)
    let move = 0
    let checkpoints = 0
    let ended: ReplayResult["ended"]
    const mismatch = (entry: Entry, what: string) =>
      new ReplayMismatch({ message: `after move ${move} (${(entry.t / 1000).toFixed(1)} s): ${what}` })
    for (const entry of recording.entries) {
      if (isMessage(entry)) {
        move++
        const request = decodeClientMessage(new TextEncoder().encode(entry.message))
        if (Either.isLeft(request)) return yield* mismatch(entry, `message ${JSON.stringify(entry.message)} cannot be read`)
        const client = replayClient(entry.client)
        const applied = yield* Effect.either(applyRequest(state, client, request.right))
        if (Either.isLeft(applied)) {
          return yield* mismatch(entry, `${JSON.stringify(entry.message)} from client ${entry.client} was refused: ${refusalText(applied.left)}`)
        }
        state = applied.right.state
        yield* onMove({ move, t: entry.t, client, transition: applied.right }, state)
      } else if (isCheckpoint(entry)) {
        checkpoints++
        if (entry.moves !== move) return yield* mismatch(entry, `checkpoint ${checkpoints} is for move ${entry.moves}`)
        const digest = stateDigest(state)
        if (digest !== entry.digest) {
          return yield* mismatch(entry, `checkpoint ${checkpoints} differs (recorded ${entry.digest}, replayed ${digest}): out of sync`)
        }
      } else {
        const summary = summaryText(standings(state))
        if (entry.end === "over" && !state.over) return yield* mismatch(entry, "the recorded game was over; the replayed one is not")
        if (summary !== entry.summary) return yield* mismatch(entry, `the summary differs:\n${entry.summary}replayed:\n${summary}`)
        if (entry.standings !== undefined && !sameStandings(entry.standings, rankedStandings(state))) {
          return yield* mismatch(entry, "the recorded standings differ from the replayed ones")
        }
        ended = entry.end
      }
    }
    return { state, moves: move, checkpoints, ended }
  }).pipe(Effect.withRandom(Random.make(recording.header.seed)))
