import { Data, Effect, FiberSet, type Scope } from "effect"

/**
 * Lines written in batches, wherever they go (a file, a database): what a recording is
 * written to, with no word of the system it runs on.
 */

/** The recording could not be opened: `code` is the system's (EEXIST, ENOENT, EACCES, ...). */
export class RecordingError extends Data.TaggedError("RecordingError")<{
  readonly reason: "Open"
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** A file of lines (newline-delimited JSON) written in batches, for as long as a scope lasts. */
export interface LineFile {
  /** Adds `line` (ended with its newline) to the next batch. */
  readonly write: (line: string) => void
  /** Writes the batch now. */
  readonly flush: () => void
}

/** Lines are written in batches this often: a write per keystroke would cost the server a fifth more CPU. */
const flushEvery = "100 millis"

/**
 * Lines gathered into batches, each handed to `write` at most 100 ms after its first line
 * (a crash loses at most that much), and at once on `flush`. The batch's timer is set by
 * its first line: a game no one plays wakes nothing (a timer every 100 ms was most of a
 * lone game's CPU at a person's pace). The one home of the batching, wherever lines go.
 */
export const batchedLines = (write: (batch: string) => void): Effect.Effect<LineFile, never, Scope.Scope> =>
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
    const flushLater = Effect.sleep(flushEvery).pipe(Effect.zipRight(Effect.sync(() => {
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
