import { ParseResult, Schema } from "effect"
import { outcomes } from "../archive/model.js"
import { variants } from "../core/rules.js"
import { dialectNamed, dialects } from "../protocol/dialect.js"

/**
 * The JSON of the lobby's API (`api.ts` says which endpoint takes and answers which): the
 * game id, the body of a new game, and every answer, as Schemas. The lobby's page reads
 * their types; nothing here reaches Node, so the page's own type check (the DOM's, no
 * Node) reads them too.
 */

/** `20250601-143205-k3f9`: when it started (UTC) and four random characters, as the archive makes them. */
const gameIdPattern = /^\d{8}-\d{6}-[a-z0-9]{4}$/

const gameIdWords = "when the game started (UTC) and four random characters: 20250601-143205-k3f9"

/** A game's id in a path or a query: nothing else names a game there. */
export const GameId = Schema.String.pipe(
  Schema.pattern(gameIdPattern, { message: (issue) => `no game ${JSON.stringify(issue.actual)}` })
).annotations({ identifier: "GameId", description: gameIdWords })

export const isGameId = Schema.is(GameId)

/** A dialect by any name it goes by (`cs50-2021`, say), read as the one it is. */
const DialectName = Schema.transformOrFail(Schema.String, Schema.Literal(...dialects), {
  strict: true,
  decode: (name, _, ast) => {
    const dialect = dialectNamed(name)
    return dialect === undefined ? ParseResult.fail(new ParseResult.Type(ast, name, "a dialect: 2019 or 2021 (cs50-2021)")) : ParseResult.succeed(dialect)
  },
  encode: ParseResult.succeed
}).annotations({ description: "2019, or 2021 (also called cs50-2021), which most CS50 clients speak" })

/** `POST /api/games`: every field may be left out (the next map in turn, a random seed, the host's variant and dialect). */
export const NewGameJson = Schema.Struct({
  map: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  seed: Schema.optional(Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER))),
  variant: Schema.optional(Schema.Literal(...variants)),
  dialect: Schema.optional(DialectName)
}).annotations({ identifier: "NewGame" })
export type NewGameJson = typeof NewGameJson.Encoded

// ---- What it answers

const LivePlayerJson = Schema.Struct({
  letter: Schema.String,
  name: Schema.String,
  purse: Schema.Number,
  /** Still in the game (false once it quit). */
  playing: Schema.Boolean
}).annotations({ identifier: "LivePlayer" })

/** A game's id in an answer: whatever the archive's recording is called (one copied in by hand too). */
const AnyGameId = Schema.String.annotations({ description: gameIdWords })

/** A game being played: `GET /api/games`, `GET /api/games/ID`. */
export const LiveGameJson = Schema.Struct({
  id: AnyGameId,
  live: Schema.Literal(true),
  map: Schema.String,
  port: Schema.Number.annotations({ description: "its UDP port: what `nuggets join` and any CS50 client need, with the address" }),
  variant: Schema.Literal(...variants),
  dialect: Schema.Literal(...dialects),
  started: Schema.String,
  players: Schema.Array(LivePlayerJson),
  spectator: Schema.Boolean.annotations({ description: "whether the protocol's one spectator is watching" }),
  nuggetsLeft: Schema.Number,
  watchers: Schema.Number.annotations({ description: "pages watching it in a browser" }),
  freePlaces: Schema.Number.annotations({ description: "players who may still join (a letter each; players who quit keep theirs)" }),
  over: Schema.Boolean.annotations({
    description: "whether it has ended: over if no nuggets are left (nuggetsLeft 0), else stopped, with no winner"
  }),
  join: Schema.String.annotations({ description: "the line to type to play it: nuggets join ADDRESS PORT NAME" }),
  page: Schema.String.annotations({ description: "its page: watch it, and play it in the browser" })
}).annotations({ identifier: "LiveGame" })
export type LiveGameJson = typeof LiveGameJson.Type

export const GamesJson = Schema.Struct({
  games: Schema.Array(LiveGameJson),
  maps: Schema.Array(Schema.String).annotations({ description: "the maps a new game may be played on" }),
  maxGames: Schema.Number.annotations({ description: "the most games the host runs at once" }),
  closing: Schema.optional(Schema.String.annotations({
    description: "why the host takes no new game and no new player now (it is closing, say); absent while it does"
  }))
}).annotations({ identifier: "Games" })
export type GamesJson = typeof GamesJson.Type

const JoinAddress = Schema.String.annotations({
  description: "the address its host's games are reached at: nuggets join ADDRESS PORT NAME (in a fleet, perhaps another host's)"
})

/** The answer to `POST /api/games` (201, with its `location`). */
export const StartedGameJson = Schema.Struct({ id: AnyGameId, port: Schema.Number, address: JoinAddress }).annotations({ identifier: "StartedGame" })
export type StartedGameJson = typeof StartedGameJson.Type

/** The answer to `DELETE /api/games/ID`: the game was ended by the host's operator, everyone told to quit. */
export const EndedGameJson = Schema.Struct({ id: AnyGameId, end: Schema.Literal("stopped") }).annotations({ identifier: "EndedGame" })
export type EndedGameJson = typeof EndedGameJson.Type

/** The answer to `POST /api/match`: a place held a few seconds for the player, in the fullest game with one, or in a game opened for it. */
export const MatchJson = Schema.Struct({
  id: AnyGameId,
  port: Schema.Number,
  address: JoinAddress,
  map: Schema.String,
  opened: Schema.Boolean.annotations({ description: "every game was full: this one was opened for the player" })
}).annotations({ identifier: "Match" })
export type MatchJson = typeof MatchJson.Type

const StandingJson = Schema.Struct({ rank: Schema.Number, letter: Schema.String, name: Schema.String, purse: Schema.Number })
  .annotations({ identifier: "Standing" })

/** A game of the archive: `GET /api/archive`, and `GET /api/games/ID` once it is over. */
export const PastGameJson = Schema.Struct({
  id: AnyGameId,
  live: Schema.Literal(false),
  map: Schema.String,
  seed: Schema.Number,
  variant: Schema.Literal(...variants),
  dialect: Schema.Literal(...dialects),
  program: Schema.String.annotations({ description: "the version of nuggets that played it: only that version replays it" }),
  started: Schema.String,
  durationMs: Schema.NullOr(Schema.Number),
  moves: Schema.NullOr(Schema.Number),
  outcome: Schema.Literal(...outcomes).annotations({
    description: "over (its gold ran out: the most nuggets won), stopped (it ended with nuggets on the map: no winner), " +
      "failed (a defect ended it), interrupted (its host died), playing (its host died and has not started again)"
  }),
  nuggetsLeft: Schema.NullOr(Schema.Number).annotations({ description: "the nuggets still on the map when it ended (null while playing)" }),
  failure: Schema.NullOr(Schema.String),
  note: Schema.NullOr(Schema.String).annotations({ description: "who ended it, when not the game itself: ended by the host (its operator)" }),
  standings: Schema.Array(StandingJson),
  winners: Schema.Array(Schema.String),
  replay: Schema.String.annotations({ description: "where the page replays it" }),
  recording: Schema.String.annotations({ description: "the recording itself (newline-delimited JSON: nuggets replay FILE plays it)" })
}).annotations({ identifier: "PastGame" })
export type PastGameJson = typeof PastGameJson.Type

export const ArchivePageJson = Schema.Struct({
  games: Schema.Array(PastGameJson),
  next: Schema.NullOr(AnyGameId).annotations({ description: "`before` for the next page, when there is one" })
}).annotations({ identifier: "ArchivePage" })
export type ArchivePageJson = typeof ArchivePageJson.Type

const LeaderJson = Schema.Struct({
  name: Schema.String,
  games: Schema.Number,
  wins: Schema.Number,
  nuggets: Schema.Number,
  best: Schema.Struct({ game: AnyGameId, purse: Schema.Number })
}).annotations({ identifier: "Leader" })

export const LeaderboardJson = Schema.Struct({ leaders: Schema.Array(LeaderJson) }).annotations({ identifier: "Leaderboard" })
export type LeaderboardJson = typeof LeaderboardJson.Type

