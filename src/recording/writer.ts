import { Effect, FiberSet, type Scope } from "effect"
import { createWriteStream, unlink } from "node:fs"
import { causeWords } from "../net/errno.js"
import type { Rules } from "../core/rules.js"
import type { Ending, GameEvent, Life, Took } from "../core/life.js"
import { type ClientId, type GameState, standings } from "../core/state.js"
import { type GameMap, mapText } from "../core/map.js"
import { type Dialect, summaryText } from "../protocol/dialect.js"
import { endedByOperator, endWords } from "../protocol/endings.js"
import { encodeClientMessage } from "../protocol/messages.js"
import { version } from "../version.js"
import { batchedLines, type LineFile, RecordingError } from "./lines.js"
import { digestOf, type Entry, formatName, formatVersion, type Header, rankedStandings, stateDigest } from "./format.js"

export interface RecordingOptions {
  /** Where the lines go: a file (`openLineFile`), or wherever an archive keeps its recordings. */
  readonly to: Effect.Effect<LineFile, RecordingError, Scope.Scope>
  readonly seed: number
  readonly rules: Rules
  readonly dialect: Dialect
  readonly map: GameMap
}

/**
 * Opens `path` for lines written in batches (see `batchedLines`); the scope's end writes the
 * last batch and waits until everything is on disk. A write that fails (a full disk) ends
 * the file there, logged once: what records must not stop what is recorded, once started.
 */
export const openLineFile = (
  path: string,
  options: { readonly overwrite?: boolean } = {}
): Effect.Effect<LineFile, RecordingError, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    const stream = yield* Effect.acquireRelease(
      Effect.async<ReturnType<typeof createWriteStream>, RecordingError>((resume) => {
        // Exclusive unless told to overwrite: a file that appeared since the command line was checked is kept.
        const stream = createWriteStream(path, { flags: options.overwrite ? "w" : "wx" })
        stream.once("open", () => resume(Effect.succeed(stream)))
        stream.once("error", (error: NodeJS.ErrnoException) =>
          resume(Effect.fail(new RecordingError({ reason: "Open", path, code: error.code, message: error.message }))))
      }),
      (stream) =>
        Effect.async<void>((resume) => {
          lines.flush()
          stream.end(() => {
            // A file this made (exclusive) that took nothing (a full disk) goes: it would refuse the next try.
            if (stopped !== undefined && !took && !options.overwrite) unlink(path, () => resume(Effect.void))
            else resume(Effect.void)
          })
        })
    )
    let took = false
    let stopped: RecordingError | undefined
    const stop = (error: NodeJS.ErrnoException) => {
      if (stopped !== undefined) return
      stopped = new RecordingError({ reason: "Write", path, code: error.code, message: error.message })
      // A file that took nothing fails its opener's `written`, which says so.
      if (took) run(Effect.logWarning(`${path} — recording stopped: ${causeWords(error)}`))
    }
    stream.on("error", stop)
    /** The last batch handed to the system, and whether it was written. */
    let last: Promise<void> = Promise.resolve()
    const lines = yield* batchedLines((batch) => {
      if (stopped !== undefined) return
      last = new Promise((done) =>
        stream.write(batch, (error) => {
          if (error) stop(error)
          else took = true
          done()
        }))
    })
    const written = Effect.promise(() => last).pipe(Effect.zipRight(Effect.suspend(() => (stopped === undefined ? Effect.void : Effect.fail(stopped)))))
    return { ...lines, written }
  })

/** What a recording needs of a game being played: its feed, where it stands, and how. */
export interface RecordedGame {
  /** Follows the game's feed for this scope: each request it takes, in order, and its end (see `LiveGame.follow`). */
  readonly follow: (follower: (event: GameEvent) => void) => Effect.Effect<void, never, Scope.Scope>
  readonly state: () => GameState
  readonly life: () => Life
}

/** A checkpoint after this many messages: a desync is caught within that many moves. */
const checkpointEvery = 100

/**
 * Records the game to a file, as it is played: the header at once, then a line per
 * message the game takes, written in batches (see `openLineFile`), then how it ended. The
 * scope closing (SIGINT, SIGTERM) before the game's end writes the game so far, checked
 * and summed up, and waits until everything is on disk.
 */
export const recordGame = (game: RecordedGame, options: RecordingOptions): Effect.Effect<void, RecordingError, Scope.Scope> =>
  Effect.gen(function*() {
    const clock = yield* Effect.clock
    const started = clock.unsafeCurrentTimeMillis()
    const elapsed = () => clock.unsafeCurrentTimeMillis() - started
    const file = yield* options.to
    const write = (line: Header | Entry) => file.write(JSON.stringify(line) + "\n")
    const map = mapText(options.map)
    write({
      format: formatName,
      formatVersion,
      program: version,
      seed: options.seed,
      rules: options.rules,
      dialect: options.dialect,
      map,
      mapDigest: digestOf(map),
      started: new Date(started).toISOString()
    })
    file.flush()
    // A recording that cannot take its header (a full disk) stops the game's start.
    yield* file.written

    /** Clients by number, in order of their first message: the file holds no addresses. */
    const numbers = new Map<ClientId, number>()
    let moves = 0
    let ended = false
    const took = ({ client, request, transition }: Took) => {
      let number = numbers.get(client)
      if (number === undefined) numbers.set(client, number = numbers.size)
      moves++
      // The common line, written by hand: a third of the cost of stringifying an object.
      file.write(`{"t":${elapsed()},"client":${number},"message":${JSON.stringify(encodeClientMessage(request))}}\n`)
      // After each join too: a replay that drops a player elsewhere is caught at once.
      if (moves % checkpointEvery === 0 || request._tag === "Play") {
        write({ t: elapsed(), moves, digest: stateDigest(transition.state) })
      }
    }
    /** The game so far, checked, and how it ended. */
    const end = (ending: Ending) => {
      ended = true
      const t = elapsed()
      write({ t, moves, digest: stateDigest(ending.state) })
      const summary = summaryText(standings(ending.state))
      const ranked = rankedStandings(ending.state)
      write(
        ending._tag === "Failed"
          ? { t, end: "failed", summary, standings: ranked, failure: ending.defect }
          : { t, end: endWords[ending._tag], summary, standings: ranked, ...(ending._tag === "ShutDown" && ending.byOperator ? { note: endedByOperator } : {}) }
      )
      file.flush()
    }
    const take = (event: GameEvent) => {
      if (ended) return
      if (event._tag === "Took") took(event)
      else if (event._tag === "Ended") end(event.ending)
    }
    // Released after the following below stops (in reverse): the game so far, and how it stands.
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        if (ended) return
        const life = game.life()
        end(life._tag === "Playing" ? { _tag: "ShutDown", state: game.state() } : life)
      }).pipe(Effect.ensuring(Effect.sync(file.flush)))
    )
    // Each line as the game takes its request, in the game's own call: a key wakes no fiber.
    yield* game.follow(take)
  })
