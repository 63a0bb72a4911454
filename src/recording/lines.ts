import { Data, type Duration, Effect, FiberSet, type Scope } from "effect"
import { errnoWords } from "../net/errno.js"

/**
 * Lines written in batches, wherever they go (a file, a database): what a recording is
 * written to, with no word of the system it runs on.
 */

/**
 * The recording could not be opened (`Open`), or took not even its first lines (`Write`, a
 * full disk): `code` is the system's (EEXIST, ENOENT, EACCES, ENOSPC, ...).
 */
export class RecordingError extends Data.TaggedError("RecordingError")<{
  readonly reason: "Open" | "Write"
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** What the user reads of a recording that failed: the file, and the system's words for why. */
export const recordingWords = (error: RecordingError): string => `${error.path} — cannot record: ${errnoWords(error.code, error.message)}`

/** A file of lines (newline-delimited JSON) written in batches, for as long as a scope lasts. */
export interface LineFile {
  /** Adds `line` (ended with its newline) to the next batch. */
  readonly write: (line: string) => void
  /** Writes the batch now. */
  readonly flush: () => void
  /**
   * Waits until what was flushed so far is taken (on disk, for a file); fails if the lines
   * stopped. The opener awaits it after its first lines: a file that cannot take them fails
   * there, and says nothing itself; one that stops later says so in the log.
   */
  readonly written: Effect.Effect<void, RecordingError>
}

/** Lines are written in batches this often: a write per keystroke would cost the server a fifth more CPU. */
const flushEvery: Duration.DurationInput = "100 millis"

/**
 * Lines gathered into batches, each handed to `write` at most `every` (100 ms) after its
 * first line (a crash loses at most that much), and at once on `flush`. The batch's timer is set by
 * its first line: a game no one plays wakes nothing (a timer every 100 ms was most of a
 * lone game's CPU at a person's pace). The one home of the batching, wherever lines go.
 */
export const batchedLines = (
  write: (batch: string) => void,
  every: Duration.DurationInput = flushEvery
): Effect.Effect<Omit<LineFile, "written">, never, Scope.Scope> =>
  Effect.gen(function*() {
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    let pending: Array<string> = []
    const flush = () => {
      if (pending.length === 0) return
      const batch = pending.join("")
      pending = []
      write(batch)
    }
    let batchTimed = false
    const flushLater = Effect.sleep(every).pipe(Effect.zipRight(Effect.sync(() => {
      batchTimed = false
      flush()
    })))
    return {
      write: (line) => {
        pending.push(line)
        if (!batchTimed) {
          batchTimed = true
          run(flushLater)
        }
      },
      flush
    }
  })
