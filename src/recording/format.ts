import { Either, Schema } from "effect"
import { variants } from "../core/rules.js"
import { type GameState, standings } from "../core/state.js"
import { type BadLine, type LineReader, readJsonLines, readJsonLinesUpTo } from "../protocol/jsonLines.js"
import { type Dialect, dialectNamed, dialects } from "../protocol/dialect.js"
import { gameEnds } from "../protocol/endings.js"
import { byPlace } from "../protocol/summary.js"

/**
 * A recording: newline-delimited JSON. The first line is the header; then one line per
 * client message the game took, in order; checkpoints now and then; and, if the game
 * ended, a last line with its standings, as data and as the summary's text. The seed and
 * the messages replay the game; the checkpoints catch a replay that goes out of step.
 */

export const formatName = "nuggets-recording"
/** 2: the seed also draws where each player is dropped, from the game state's own generator. */
export const formatVersion = 2

/** A sight rule as recorded; earlier versions wrote the 2019 rule as "spec". */
const SightField = Schema.transform(Schema.Literal("allSpots", "roomSpotsOnly", "spec"), Schema.Literal("allSpots", "roomSpotsOnly"), {
  strict: true,
  decode: (rule) => (rule === "spec" ? "allSpots" : rule),
  encode: (rule) => rule
})

/** A dialect as recorded; earlier versions wrote "spec" and "cs50-2021". */
const DialectField = Schema.transform(Schema.Literal(...dialects, "spec", "cs50-2021"), Schema.Literal(...dialects), {
  strict: true,
  decode: (name) => dialectNamed(name) as Dialect,
  encode: (dialect) => dialect
})

export const Header = Schema.Struct({
  format: Schema.Literal(formatName),
  formatVersion: Schema.Number,
  /** The version of nuggets that recorded it: another version may play differently. */
  program: Schema.String,
  seed: Schema.Number,
  rules: Schema.Struct({
    maxPlayers: Schema.Number,
    maxNameLength: Schema.Number,
    goldTotal: Schema.Number,
    goldMinPiles: Schema.Number,
    goldMaxPiles: Schema.Number,
    sight: SightField,
    variant: Schema.Literal(...variants)
  }),
  dialect: DialectField,
  /** The map, as text. */
  map: Schema.String,
  /** A digest of `map`: a recording whose map was edited is refused. */
  mapDigest: Schema.String,
  /** When recording began (ISO 8601): for people, not for the replay. */
  started: Schema.String
})
export type Header = typeof Header.Type

/** A client message the game took: when (ms after the start), from which client (numbered in order of appearance), what. */
export const Message = Schema.Struct({ t: Schema.Number, client: Schema.Number, message: Schema.String })
export type Message = typeof Message.Type

/** The game as it stood after `moves` messages: a digest of the spectator's view and the purses. */
export const Checkpoint = Schema.Struct({ t: Schema.Number, moves: Schema.Number, digest: Schema.String })
export type Checkpoint = typeof Checkpoint.Type

/** A player's line in the standings: most nuggets first; equal purses share a rank (1, 2, 2, 4). */
export const Standing = Schema.Struct({ rank: Schema.Number, letter: Schema.String, name: Schema.String, purse: Schema.Number })
export type Standing = typeof Standing.Type

/** Players in their ranks, best first (the rule is `byPlace`'s). */
export const ranked = (players: ReadonlyArray<{ readonly letter: string; readonly name: string; readonly purse: number }>): ReadonlyArray<Standing> =>
  byPlace(players).map(({ letter, name, purse, place }) => ({ rank: place, letter, name, purse }))

/** Every player who joined, best first, as the game stands. */
export const rankedStandings = (state: GameState): ReadonlyArray<Standing> => ranked(standings(state))

/**
 * How the game ended (`over`, `stopped` or `failed`: see `protocol/endings.ts`; `failure`
 * says which defect, and the game as it stood then is still the game recorded), and its
 * standings: `standings` are the data, `summary` the text a server sends (`L purse name` a
 * line). Recordings made before the words were one say `game over` (which then also ended
 * a game whose last player left: the nuggets left tell) and `shut down`; those made before
 * the standings were written have the summary alone.
 */
const EndField = Schema.transform(Schema.Literal(...gameEnds, "game over", "shut down"), Schema.Literal(...gameEnds), {
  strict: true,
  decode: (word) => (word === "game over" ? "over" : word === "shut down" ? "stopped" : word),
  encode: (word) => word
})
export const End = Schema.Struct({
  t: Schema.Number,
  end: EndField,
  summary: Schema.String,
  standings: Schema.optional(Schema.Array(Standing)),
  failure: Schema.optional(Schema.String),
  /** Who ended it, when not the game itself: `ended by the host` (its operator). */
  note: Schema.optional(Schema.String)
})
export type End = typeof End.Type

export const Entry = Schema.Union(Message, Checkpoint, End)
export type Entry = typeof Entry.Type

export const isMessage = (entry: Entry): entry is Message => "message" in entry
export const isCheckpoint = (entry: Entry): entry is Checkpoint => "digest" in entry

export interface Recording {
  readonly header: Header
  readonly entries: ReadonlyArray<Entry>
}

/** 32-bit FNV-1a, as 8 hex digits: enough to tell two views apart, and cheap. */
export const digestOf = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, "0")
}

/**
 * What a checkpoint keeps of the game: everything the spectator's view shows (where each
 * player stands, where each pile lies) and what it does not (purses, nuggets left), as one
 * digest. Worked out from the state, not by drawing the view: it is cheap on large maps.
 */
export const stateDigest = (state: GameState): string => {
  const parts: Array<number> = [state.goldRemaining]
  for (const player of state.players) parts.push(player.active ? player.position : -1, player.purse)
  for (const [cell, nuggets] of [...state.gold].sort(([a], [b]) => a - b)) parts.push(cell, nuggets)
  return digestOf(parts.join(","))
}

const decodeHeader = Schema.decodeUnknownEither(Schema.parseJson(Header))
const decodeEntry = Schema.decodeUnknownEither(Schema.parseJson(Entry))

/** How a recording's lines are read: the header checked to be one this version replays, then an entry a line. */
const recordingLines: LineReader<Header, Entry> = {
  empty: "the file is empty",
  header: (line) => {
    const header = decodeHeader(line)
    if (Either.isLeft(header)) {
      return Either.left(/"format"/.test(line) ? `line 1: not a header this version can read` : "not a nuggets recording")
    }
    if (header.right.formatVersion !== formatVersion) {
      return Either.left(`recording format ${header.right.formatVersion}; this nuggets reads format ${formatVersion}`)
    }
    if (digestOf(header.right.map) !== header.right.mapDigest) return Either.left("the map in the header was changed")
    return Either.right(header.right)
  },
  entry: (line) => Either.mapLeft(decodeEntry(line), () => undefined),
  notEntry: "not a recording entry"
}

/**
 * Reads a recording, checking every line. A last line cut short (the recorder was killed
 * mid-write) is dropped: what was played before it still replays.
 */
export const parseRecording = (text: string): Either.Either<Recording, string> => readJsonLines(text, recordingLines)

/** What of a recording reads up to its first bad line, and that line (none when every line reads). */
export interface RecordingUpTo {
  readonly recording: Recording
  readonly badLine: BadLine | undefined
}

/**
 * Reads a recording as far as it can: up to its first line that is no entry (a damaged
 * file), which is given with its number. Only a file with no header this version reads is
 * refused. For the archive, which indexes what a damaged recording still holds; a replay
 * reads with `parseRecording`, which refuses it.
 */
export const parseRecordingUpTo = (text: string): Either.Either<RecordingUpTo, string> =>
  Either.map(readJsonLinesUpTo(text, recordingLines), ({ badLine, entries, header }) => ({ recording: { header, entries }, badLine }))
