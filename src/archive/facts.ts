import { Effect, Either } from "effect"
import type { Variant } from "../core/rules.js"
import type { Dialect } from "../protocol/dialect.js"
import { endOf, type GameEnd } from "../protocol/endings.js"
import type { BadLine } from "../protocol/jsonLines.js"
import { isMessage, parseRecordingUpTo, rankedStandings, type Recording, type Standing } from "../recording/format.js"
import { replayRecording } from "../recording/replay.js"
import { UnreadableRecording } from "./errors.js"

/**
 * What the archive keeps of a recording, read from the file itself: the recordings are
 * the source of truth, and every row of the index is made from one by this.
 */
export interface RecordingFacts {
  readonly mapDigest: string
  readonly seed: number
  readonly variant: Variant
  readonly dialect: Dialect
  readonly program: string
  readonly startedMs: number
  /** To the recording's last line. */
  readonly durationMs: number
  readonly moves: number
  /** How the recording ends; undefined when it stops before the end (its host died). */
  readonly end: GameEnd | undefined
  /** What stopped the game, when a defect did (`failed`). */
  readonly failure: string | undefined
  /** Who ended it, when not the game itself (`ended by the host`). */
  readonly note: string | undefined
  readonly standings: ReadonlyArray<Standing>
  /** The nuggets its players had not found when it ended, or where its recording stops. */
  readonly nuggetsLeft: number
  /** The line the recording could not be read past (a damaged file): what is above is what it holds. */
  readonly badLine?: BadLine
}

/**
 * Where a game stood when its recording stops, replayed with the real core: for a recording
 * with no end (its host died), or one whose end line has no standings (recorded before it
 * carried them). None when it cannot be replayed (another version of nuggets recorded it),
 * which only costs the listing its standings. The summary's text is never read back.
 */
const standingsWhereItStopped = (recording: Recording): Effect.Effect<ReadonlyArray<Standing>> =>
  replayRecording(recording).pipe(
    Effect.map((result) => rankedStandings(result.state)),
    Effect.orElseSucceed(() => [])
  )

/**
 * The facts of the recording `text`, whose file is `file` (for the reason, if it cannot be
 * read). Read as far as it can be: a recording with a bad line is the game up to it (and,
 * without its end, interrupted there); only one whose header cannot be read has no facts.
 */
export const recordingFacts = (file: string, text: string): Effect.Effect<RecordingFacts, UnreadableRecording> =>
  Effect.gen(function*() {
    const parsed = parseRecordingUpTo(text)
    if (Either.isLeft(parsed)) return yield* new UnreadableRecording({ file, reason: parsed.left })
    const { recording, badLine } = parsed.right
    const { header, entries } = recording
    const startedMs = Date.parse(header.started)
    if (Number.isNaN(startedMs)) {
      return yield* new UnreadableRecording({ file, reason: `its start, ${JSON.stringify(header.started)}, is not a time` })
    }
    const last = entries.at(-1)
    const end = last !== undefined && "end" in last ? last : undefined
    const standings = end?.standings ?? (yield* standingsWhereItStopped(recording))
    const nuggetsLeft = Math.max(0, header.rules.goldTotal - standings.reduce((sum, each) => sum + each.purse, 0))
    return {
      mapDigest: header.mapDigest,
      seed: header.seed,
      variant: header.rules.variant,
      dialect: header.dialect,
      program: header.program,
      startedMs,
      durationMs: last?.t ?? 0,
      moves: entries.filter(isMessage).length,
      // An older recording's `game over` also ended a game whose last player left: stopped, if nuggets were left.
      end: end?.end === "over" ? endOf(nuggetsLeft) : end?.end,
      failure: end?.failure,
      note: end?.note,
      standings,
      nuggetsLeft,
      ...(badLine === undefined ? {} : { badLine })
    }
  })
