import { Console, Effect, Either, Layer, Option } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { Archive, archiveLayer } from "../archive/archive.js"
import { archiveFiles, dataDirectory } from "../archive/dataDir.js"
import { repairedLine } from "../archive/repair.js"
import { sqliteBackend } from "../archive/sqlite.js"
import type { ArchivedGame, Reconciled } from "../archive/model.js"
import { pageSize } from "../archive/model.js"
import { command, excludes, group, optional, text, wholeNumber, withDefault } from "./command.js"
import { CliError, toCliError } from "./error.js"
import { databaseName, databaseUrl, fleetDatabaseLayer } from "../fleet/database.js"
import { readingFleetArchiveBackend } from "../fleet/recordings.js"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { ArchiveBackend } from "../archive/backend.js"
import { type ArchiveError, damageWords, isDamage } from "../archive/errors.js"
import type { FleetError } from "../fleet/database.js"
import { plural } from "../words.js"

/** Where the recordings of hosted games and their index are kept. */
export const dataOption = text("data", "DIR", "the data directory: the recordings in DIR/games/ and their index").pipe(
  optional("$XDG_DATA_HOME/nuggets, else ~/.local/share/nuggets")
)

const dataDirOf = (flag: Option.Option<string>) =>
  dataDirectory({ flag: Option.getOrUndefined(flag), env: process.env, home: homedir(), cwd: process.cwd() })

/** `1:05`, `1:02:05`. */
const clockTime = (ms: number | undefined) => {
  if (ms === undefined) return "-"
  const seconds = Math.round(ms / 1000)
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60]
  const two = (n: number) => String(n).padStart(2, "0")
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`
}

/** Columns of numbers are aligned to the right. */
const rightAligned = new Set(["LEFT"])

/**
 * The games as a table: a line each, columns aligned. How each ended (`over`, `stopped`,
 * ...), the nuggets it left on the map, and its winners: only a game over has any.
 */
const table = (games: ReadonlyArray<ArchivedGame>): string => {
  const heads = ["GAME", "STARTED (UTC)", "MAP", "TIME", "END", "LEFT", "WINNER", "STANDINGS"]
  const rows = [
    heads,
    ...games.map((game) => [
      game.id,
      game.started.slice(0, 16).replace("T", " "),
      game.map,
      clockTime(game.durationMs),
      game.outcome,
      game.nuggetsLeft === undefined ? "-" : String(game.nuggetsLeft),
      game.winners.join(", ") || "-",
      game.standings.map((each) => `${each.name} ${each.purse}`).join(", ")
    ])
  ]
  const widths = heads.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const cellText = (cell: string, column: number) =>
    column === heads.length - 1 ? cell : rightAligned.has(heads[column]!) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)
  return rows.map((row) => row.map(cellText).join("  ")).join("\n")
}

/** What bringing the index up to date did, in a line or two (none when it did nothing; a repair says it alone). */
const reconciledLines = (dataDir: string, done: Reconciled): Array<string> => {
  const parts = [
    done.indexed.length > 0 && done.repaired === undefined ? `${plural(done.indexed.length, "recording")} indexed` : "",
    done.interrupted.length > 0 ? `${plural(done.interrupted.length, "game")} interrupted when its host stopped` : "",
    done.removed.length > 0 ? `${plural(done.removed.length, "game")} whose recording is gone dropped` : ""
  ].filter(Boolean)
  const repaired = repairedLine(done)
  return [
    ...(repaired === undefined ? [] : [`${dataDir}: ${repaired}`]),
    ...(parts.length > 0 ? [`${dataDir}: ${parts.join("; ")}`] : []),
    ...done.skipped.map((each) => `${join(dataDir, each.file)}: skipped — ${each.reason}`)
  ]
}

/** What is wrong with a damaged index, and what makes it again: the host that holds it, or this command with none. */
const damagedIndex = (dataDir: string, error: ArchiveError, hostRuns: boolean | undefined): string => {
  const head = `${archiveFiles(dataDir).database} — the index is damaged (${damageWords(error)})`
  const remade = "sets it aside and makes a new one from the recordings, which are safe"
  if (hostRuns === true) return `${head}: restart the host running on ${dataDir}, which then ${remade}`
  if (hostRuns === false) return `${head}: run this again, which ${remade}`
  return `${head}: the next host to start on ${dataDir}, or this command run when no host is running there, ${remade}`
}

const listArchive = (options: {
  readonly data: Option.Option<string>
  readonly database: Option.Option<string>
  readonly player: Option.Option<string>
  readonly map: Option.Option<string>
  readonly before: Option.Option<string>
  readonly limit: number
}) =>
  Effect.suspend(() => {
    const dataDir = dataDirOf(options.data)
    const fleet = Option.map(options.database, (text) => databaseUrl(text))
    if (Option.isSome(fleet) && fleet.value === undefined) {
      return Effect.fail(new CliError({ message: `--database — ${JSON.stringify(Option.getOrElse(options.database, () => ""))} is not a PostgreSQL URL; write postgres://USER@HOST:PORT/DB` }))
    }
    const fleetUrl = Option.getOrUndefined(fleet)
    const where = fleetUrl === undefined ? dataDir : databaseName(fleetUrl)
    // Whether a host holds the directory, once asked: a damaged index is then its to make again.
    let hostRuns: boolean | undefined
    const listing = Effect.gen(function*() {
      const archive = yield* Archive
      // No host running on the directory: the index is brought up to date first. With one, it keeps it so; a fleet's hosts keep theirs.
      const owner = fleetUrl === undefined ? yield* Effect.either(archive.own) : undefined
      if (owner === undefined) {
        // A fleet's archive: nothing to bring up to date here.
      } else if (Either.isRight(owner)) {
        hostRuns = false
        for (const line of reconciledLines(dataDir, yield* owner.right.reconcile())) yield* Console.error(line)
      } else if (owner.left.reason === "Busy") {
        hostRuns = true
      } else {
        return yield* owner.left
      }
      const page = yield* archive.pastGames({
        player: Option.getOrUndefined(options.player),
        map: Option.getOrUndefined(options.map),
        before: Option.getOrUndefined(options.before),
        limit: options.limit
      }).pipe(
        Effect.catchIf(
          (error) => error.reason === "UnknownGame",
          () => new CliError({ message: `--before — no game ${Option.getOrElse(options.before, () => "")} in ${where}` })
        )
      )
      if (page.games.length === 0) return yield* Console.log(`no games in ${where}`)
      yield* Console.log(table(page.games))
      if (page.next !== undefined) yield* Console.log(`more: --before ${page.next}`)
      yield* Console.log(
        fleetUrl === undefined
          ? `watch one again: nuggets replay ${join(archiveFiles(dataDir).games, "GAME.ndjson")}`
          : `watch one again: its recording is at /api/archive/GAME/recording on any host of the fleet, for nuggets replay`
      )
    })
    // The archive's database, chosen here: SQLite in the data directory, or the fleet's PostgreSQL.
    const store: Layer.Layer<SqlClient.SqlClient | ArchiveBackend, ArchiveError | FleetError> = fleetUrl === undefined
      ? sqliteBackend({ dataDir, create: false })
      : readingFleetArchiveBackend(fleetUrl).pipe(Layer.provideMerge(fleetDatabaseLayer(fleetUrl)))
    return listing.pipe(
      Effect.scoped,
      Effect.provide(archiveLayer.pipe(Layer.provide(store))),
      Effect.catchTag("ArchiveError", (error): Effect.Effect<never, ArchiveError | CliError> => {
        if (isDamage(error)) return new CliError({ message: damagedIndex(dataDir, error, hostRuns) })
        if (error.reason !== "NoArchive") return Effect.fail(error)
        const host = Option.isSome(options.data) ? `nuggets host --data ${dataDir}` : "nuggets host"
        return new CliError({ message: `${error.message}: '${host}' makes it, and records every game it hosts there` })
      })
    )
  }).pipe(Effect.mapError(toCliError))

export const archiveNode = group("archive", "The archive of hosted games: their recordings and the index of them.", [
  command(
    "list",
    {
      summary: "List the archive's past games, newest first: when, the map, how long, how each ended and its standings. " +
        "Recordings added to DIR/games/ by hand are indexed first, unless a host is running on DIR.",
      options: {
        data: dataOption,
        database: text("database", "URL", "the archive of the fleet on this PostgreSQL database (postgres://USER@HOST:PORT/DB)").pipe(
          optional("the data directory's")
        ),
        player: text("player", "NAME", "only the games NAME played in (letter case ignored)").pipe(optional()),
        map: text("map", "NAME", "only the games on this map").pipe(optional()),
        before: text("before", "GAME", "only the games that started before GAME: the next page").pipe(optional()),
        limit: wholeNumber("limit", "N", 1, pageSize.max, "at most N games").pipe(withDefault<number>(pageSize.default))
      },
      rules: [excludes("--database", "--data")]
    },
    listArchive
  )
])
