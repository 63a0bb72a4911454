import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { ParseResult, Schema } from "effect"
import { pageSize } from "../archive/model.js"
import { version } from "../version.js"
import { apiPaths } from "./paths.js"
import { badRequest, jsonContentType, jsonEncoding, refusals } from "./refusals.js"
import {
  ArchivePageJson,
  GameId,
  GamesJson,
  LeaderboardJson,
  EndedGameJson,
  LiveGameJson,
  MatchJson,
  NewGameJson,
  PastGameJson,
  StartedGameJson
} from "./schemas.js"

/**
 * The lobby's JSON API, declared once with @effect/platform's HttpApi: each path, what it
 * takes (its queries here, its body and answers in `schemas.ts`) and how it refuses
 * (`refusals.ts`). The host serves it (`host/api.ts`), `join` calls it
 * (`cli/matchmaking.ts`), the lobby's page reads the types of its answers, and
 * `/api/openapi.json` is its description, made from this. Plain JSON: times are ISO 8601,
 * durations milliseconds.
 */

/** The path of one game's resource. */
const GamePath = Schema.Struct({ id: GameId })

// ---- What the API takes

/** A query parameter given empty is as if not given (`?before=` asks for the first page). */
const emptyAsAbsent = <A>(schema: Schema.Schema<A, string>) =>
  Schema.transformOrFail(Schema.String, Schema.UndefinedOr(Schema.typeSchema(schema)), {
    strict: true,
    decode: (text) => (text === "" ? ParseResult.succeed(undefined) : ParseResult.decodeUnknown(schema)(text)),
    encode: (value) => (value === undefined ? ParseResult.succeed("") : ParseResult.encodeUnknown(schema)(value))
  })

/** `limit`: 1 to the most a page holds. */
const Limit = emptyAsAbsent(
  Schema.transform(
    Schema.String.pipe(Schema.pattern(/^\d{1,6}$/, { message: (issue) => `limit must be a whole number, not ${JSON.stringify(issue.actual)}` })),
    Schema.Int.pipe(Schema.between(1, pageSize.max, { message: (issue) => `limit must be 1 to ${pageSize.max}, not ${issue.actual}` })),
    { strict: true, decode: (text) => Number(text), encode: (limit) => String(limit) }
  )
).annotations({ description: `how many, 1 to ${pageSize.max} (${pageSize.default} when not given)` })

const Player = Schema.String.annotations({ description: "only this name's (letter case ignored)" })

const ArchiveQuery = Schema.Struct({
  player: Schema.optional(Player),
  map: Schema.optional(Schema.String.annotations({ description: "only games on this map (letter case ignored)" })),
  limit: Schema.optional(Limit),
  before: Schema.optional(
    emptyAsAbsent(GameId.annotations({ message: (issue) => `before: no game ${JSON.stringify(issue.actual)}` })).annotations({
      description: "only games older than this one: the `next` of the page before"
    })
  )
})

const LeaderboardQuery = Schema.Struct({ player: Schema.optional(Player), limit: Schema.optional(Limit) })

// ---- What it answers

const answer = <S extends Schema.Schema.Any>(schema: S): S => HttpApiSchema.withEncoding(schema, jsonEncoding)

/** A recording, as `nuggets replay` plays it. */
const RecordingFile = HttpApiSchema.Uint8Array({ contentType: "application/x-ndjson" })

// ---- The API

const games = HttpApiGroup.make("games")
  .add(HttpApiEndpoint.get("list", apiPaths.games).addSuccess(answer(GamesJson)))
  .add(
    HttpApiEndpoint.post("start", apiPaths.games)
      .setPayload(NewGameJson)
      .addSuccess(answer(StartedGameJson), { status: 201 })
      .addError(refusals.BadRequest)
      .addError(refusals.Forbidden)
      .addError(refusals.PayloadTooLarge)
      .addError(refusals.TooManyRequests)
      .addError(refusals.Unavailable)
      // An empty body is an empty object: every field may be left out.
      .annotate(OpenApi.Transform, (operation) => ({ ...operation, requestBody: { ...operation["requestBody"], required: false } }))
  )
  .add(
    HttpApiEndpoint.del("end", apiPaths.game)
      .setPath(GamePath)
      .addSuccess(answer(EndedGameJson))
      .addError(refusals.Unauthorized)
      .addError(refusals.Forbidden)
      .addError(refusals.NotFound)
      .annotate(OpenApi.Description, "the host's operator ends a game of this host: everyone is told to quit (Authorization: Bearer TOKEN)")
  )
  .add(
    HttpApiEndpoint.post("match", apiPaths.match)
      .addSuccess(answer(MatchJson))
      .addError(refusals.BadRequest)
      .addError(refusals.Forbidden)
      .addError(refusals.TooManyRequests)
      .addError(refusals.Unavailable)
      .annotate(OpenApi.Description, "a place for one more player: in the fullest game that has one, or in a game opened for it")
  )
  .add(
    HttpApiEndpoint.get("game", apiPaths.game)
      .setPath(GamePath)
      .addSuccess(answer(Schema.Union(LiveGameJson, PastGameJson)))
      .addError(refusals.NotFound)
      .addError(refusals.Unavailable)
  )
  .annotate(OpenApi.Description, "the games being played, and a new one")

const archive = HttpApiGroup.make("archive")
  .add(
    HttpApiEndpoint.get("pastGames", apiPaths.archive)
      .setUrlParams(ArchiveQuery)
      .addSuccess(answer(ArchivePageJson))
      .addError(refusals.BadRequest)
      .addError(refusals.Unavailable)
  )
  .add(HttpApiEndpoint.get("recording", apiPaths.recording).setPath(GamePath).addSuccess(RecordingFile).addError(refusals.NotFound).addError(refusals.Unavailable))
  .add(
    HttpApiEndpoint.get("leaderboard", apiPaths.leaderboard)
      .setUrlParams(LeaderboardQuery)
      .addSuccess(answer(LeaderboardJson))
      .addError(refusals.BadRequest)
      .addError(refusals.Unavailable)
  )
  .annotate(OpenApi.Description, "past games, newest first, and the leaderboard of the games played to their end")

/** The API's own description: it names the paths above, not itself. */
const description = HttpApiGroup.make("description")
  .add(HttpApiEndpoint.get("openApi", apiPaths.openApi).addSuccess(answer(Schema.Unknown)))
  .annotate(OpenApi.Exclude, true)

/**
 * HttpApi's own decode error never reaches a client: the host answers a request it cannot
 * decode in this contract's words (`BadRequest`, or `NotFound` for a path that names no
 * game), so the description does not offer it.
 */
const withoutDecodeError = (spec: Record<string, any>) => {
  const decodeError = "#/components/schemas/HttpApiDecodeError"
  for (const operation of Object.values(spec["paths"]).flatMap((path) => Object.values(path as object))) {
    const offered = Object.values(operation.responses["400"]?.content ?? {}).map((each: any) => each.schema)
    const ours = offered.flatMap((schema) => schema.anyOf ?? [schema]).filter((schema) => schema.$ref !== decodeError)
    delete operation.responses["400"]
    if (ours.length > 0) {
      const schema = ours.length === 1 ? ours[0] : { anyOf: ours }
      operation.responses["400"] = { description: badRequest, content: { [jsonContentType]: { schema } } }
    }
  }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete spec["components"].schemas[name]
  return spec
}

export class LobbyApi extends HttpApi.make("lobby")
  .add(games)
  .add(archive)
  .add(description)
  .annotateContext(OpenApi.annotations({
    title: "Nuggets lobby",
    version,
    description: "The lobby of `nuggets host`: its games being played, its archive and leaderboard. Every refusal is " +
      "`{\"error\": \"...\"}` with its status, and changes nothing.",
    transform: withoutDecodeError
  }))
{}

/** The API in OpenAPI 3, served at `apiPaths.openApi`. */
export const openApiDocument = () => OpenApi.fromApi(LobbyApi)
