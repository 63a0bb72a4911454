/**
 * `node --import tsx scripts/bench/archive.ts [--games N]`: the archive's queries on an
 * archive of 100,000 games (the target: a filtered page in under 50 ms). The games are
 * written straight into the index, as indexing their recordings writes them (4
 * players of 2,000 names, one regular in a seventh of the games, 5 maps, a game a minute);
 * then each query is timed 200 times. Prints the figures; asserts nothing.
 * `benchArchive` gives them to `npm run bench`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Archive, archiveLayer } from "../../src/archive/archive.js"
import { archiveFiles } from "../../src/archive/dataDir.js"
import { sqliteBackend } from "../../src/archive/sqlite.js"
import type { RecordingFacts } from "../../src/archive/facts.js"
import { indexedRows, rebuildLeaders } from "../../src/archive/store.js"
import { round, summarize } from "./stats.js"

/** The archive in `dataDir` as the commands compose it (SQLite), and its SQL client, for this scope. */
const openArchive = (dataDir: string) =>
  Effect.map(Layer.build(archiveLayer.pipe(Layer.provideMerge(sqliteBackend({ dataDir, create: false })))), (context) => ({
    archive: Context.get(context, Archive),
    sql: Context.get(context, SqlClient.SqlClient)
  }))

const maps = ["main", "small", "large", "hole", "cramped"]
const names = Array.from({ length: 2000 }, (_, i) => `player${i}`)
const regular = "regular"
const firstStart = Date.UTC(2026, 0, 1)

/** Game `i`: its map, its four players and their purses (a tie now and then), its start. */
const gameAt = (i: number) => {
  const players = [0, 1, 2, 3].map((seat) => ({
    letter: "ABCD"[seat]!,
    name: seat === 0 && i % 7 === 0 ? regular : names[(i * 7 + seat * 131) % names.length]!,
    purse: [100, 70, 50, 30][seat]! + (i % 3 === 0 && seat === 1 ? 30 : 0)
  }))
  const facts: RecordingFacts = {
    mapDigest: `digest${i % maps.length}`,
    seed: i,
    variant: "classic",
    dialect: "2019",
    program: "bench",
    startedMs: firstStart + i * 60_000,
    durationMs: 300_000,
    moves: 2000,
    end: i % 50 === 0 ? "stopped" : "over",
    failure: undefined,
    note: undefined,
    standings: players.map((each) => ({ ...each, rank: 1 + players.filter((other) => other.purse > each.purse).length })),
    nuggetsLeft: i % 50 === 0 ? 250 - players.reduce((sum, each) => sum + each.purse, 0) : 0
  }
  return { id: `g${String(i).padStart(6, "0")}`, mapName: maps[i % maps.length]!, facts }
}

/**
 * Writes `count` games into the index in `dataDir` as indexing their recordings writes them
 * (`indexedRows`), then the leaderboard as the archive makes it again (`rebuildLeaders`);
 * and an empty file for each, for the start-up reconcile. Rows go in 5,000 games at a time,
 * as one JSON parameter that SQLite unpacks (`json_each`): three times faster than
 * @effect/sql's own multi-row insert, whose statements carry thousands of parameters.
 */
const fill = (dataDir: string, count: number) =>
  Effect.scoped(Effect.gen(function*() {
    const { sql } = yield* openArchive(dataDir)
    const bulkInsert = (table: string, rows: ReadonlyArray<Record<string, unknown>>) => {
      const columns = Object.keys(rows[0]!)
      return sql.unsafe(
        `INSERT INTO ${table} (${columns.join(", ")}) SELECT ${columns.map((column) => `value ->> '${column}'`).join(", ")} FROM json_each(?)`,
        [JSON.stringify(rows)]
      )
    }
    for (let from = 0; from < count; from += 5000) {
      const rows = Array.from({ length: Math.min(5000, count - from) }, (_, k) => {
        const { id, mapName, facts } = gameAt(from + k)
        return indexedRows({ id, mapName, outcome: facts.end!, failure: undefined }, facts)
      })
      yield* sql.withTransaction(
        Effect.all([bulkInsert("games", rows.map((each) => each.game)), bulkInsert("players", rows.flatMap((each) => each.players))])
      )
    }
    yield* sql.withTransaction(rebuildLeaders(sql))
    const { games } = archiveFiles(dataDir)
    for (let i = 0; i < count; i++) writeFileSync(join(games, `${gameAt(i).id}.ndjson`), "")
  }))

/**
 * Wall time per run (median, p99, max) and the CPU time a run takes on average: on a busy
 * machine a run may wait its turn for a core, which the wall time shows and the CPU time does not.
 */
const timeMs = async (run: () => Promise<unknown>, times: number) => {
  const samples: Array<number> = []
  const cpu = process.cpuUsage()
  for (let i = 0; i < times; i++) {
    const started = performance.now()
    await run()
    samples.push(performance.now() - started)
  }
  const used = process.cpuUsage(cpu)
  const { median, p99, max } = summarize(samples)
  return { medianMs: round(median, 2), p99Ms: round(p99, 2), maxMs: round(max, 2), cpuMs: round((used.user + used.system) / 1000 / times, 2) }
}

export const benchArchive = async (options: { readonly games?: number; readonly times?: number } = {}) => {
  const count = options.games ?? 100_000
  const times = options.times ?? 200
  const dataDir = mkdtempSync(join(tmpdir(), "nuggets-bench-archive-"))
  try {
    const { games: gamesDir, database } = archiveFiles(dataDir)
    mkdirSync(gamesDir, { recursive: true })
    const filling = performance.now()
    await Effect.runPromise(fill(dataDir, count))
    const fillSeconds = round((performance.now() - filling) / 1000)
    return await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const opening = performance.now()
      const { archive, sql } = yield* openArchive(dataDir)
      const openMs = round(performance.now() - opening, 1)
      const reconciling = performance.now()
      const owner = yield* archive.own
      const reconciled = yield* owner.reconcile()
      const reconcileMs = round(performance.now() - reconciling, 1)
      if (reconciled.indexed.length + reconciled.removed.length + reconciled.skipped.length > 0) throw new Error("the bench's archive and files disagree")
      const middle = gameAt(Math.floor(count / 2)).id
      const map = maps[1]!
      const queries: Record<string, () => Effect.Effect<unknown, unknown>> = {
        newestPage: () => archive.pastGames(),
        byPlayer: () => archive.pastGames({ player: names[17]! }),
        byRegularPlayer: () => archive.pastGames({ player: regular }),
        byMap: () => archive.pastGames({ map: map }),
        byPlayerAndMap: () => archive.pastGames({ player: regular, map: map }),
        deepPageByMap: () => archive.pastGames({ map: map, before: middle }),
        deepPageByPlayerAndMap: () => archive.pastGames({ player: regular, map: map, before: middle }),
        oneGame: () => archive.game(middle),
        leaderboard: () => archive.leaderboard(),
        nameOnLeaderboard: () => archive.leaderboard({ player: regular })
      }
      const figures: Record<string, unknown> = {}
      for (const [name, query] of Object.entries(queries)) {
        const page = yield* query()
        if (Array.isArray((page as { games?: unknown }).games) && (page as { games: Array<unknown> }).games.length === 0) {
          throw new Error(`${name}: an empty page measures nothing`)
        }
        figures[name] = yield* Effect.promise(() => timeMs(() => Effect.runPromise(query()), times))
      }
      const [integrity] = yield* sql<{ integrity_check: string }>`PRAGMA integrity_check`
      return {
        games: count,
        fillSeconds,
        databaseMB: round(statSync(database).size / 1e6),
        recordings: readdirSync(gamesDir).length,
        openMs,
        startReconcileMs: reconcileMs,
        integrity: integrity?.integrity_check,
        queries: figures
      }
    })))
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf("--games")
  const figures = await benchArchive(at === -1 ? {} : { games: Number(process.argv[at + 1]) })
  console.log(JSON.stringify(figures, null, 2))
  const filtered = Object.entries(figures.queries).filter(([name]) => /^(by|deep)/.test(name))
  const worst = (key: "medianMs" | "p99Ms" | "cpuMs") => Math.max(...filtered.map(([, each]) => (each as Record<string, number>)[key]!))
  console.log(
    `archive of ${figures.games} games, a filtered page: median ${worst("medianMs")} ms, p99 ${worst("p99Ms")} ms, ` +
      `CPU ${worst("cpuMs")} ms (the slowest filter of each; target under 50 ms)`
  )
}
