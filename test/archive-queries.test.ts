import { describe, expect, it } from "@effect/vitest"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Statement } from "@effect/sql/Statement"
import { Effect } from "effect"
import { rmSync } from "node:fs"
import { join } from "node:path"
import type { ArchiveService } from "../src/archive/archive.js"
import type { Outcome } from "../src/archive/model.js"
import {
  gameStatement,
  leadersStatement,
  mapNameStatement,
  pastGamesStatement,
  playersStatement,
  playingStatement
} from "../src/archive/store.js"
import { openArchive, openDatabase } from "./archive/open.js"
import { dropRecording, handmadeRecording, mapTextOf, scratchFolders } from "./archive/recordings.js"
import { referenceLeaderboard, referencePastGames, referenceStandings, type ReferenceGame } from "./archive/reference.js"

const freshDir = scratchFolders("archive-queries")

/** A seeded generator of numbers in [0, 1): the same archive every run. */
const generator = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31

const maps = [["small", "small.txt"], ["main", "main.txt"], ["hole", "hole.txt"]] as const
const names = ["Alice", "alice", "Bob", "Cy", "Dee", "Eve"]

/**
 * Games dropped into DATA/games/ as their recordings, then indexed by `reconcile`: starts
 * that tie (so the id breaks them), names that differ only in case, purses that tie, and
 * every ending (a recording with no end has no standings here: it has no moves).
 */
const randomArchive = (dataDir: string, count: number): Array<ReferenceGame> => {
  const random = generator(7)
  const pick = <A>(list: ReadonlyArray<A>): A => list[Math.floor(random() * list.length)]!
  return Array.from({ length: count }, (_, i) => {
    const id = `x${String((i * 37) % 97).padStart(2, "0")}`
    const startedMs = Date.UTC(2026, 0, 1 + Math.floor(random() * 20))
    const [map, file] = pick(maps)
    // The words of today's recordings, and those of the recordings made before (read as today's).
    const ending = pick(["over", "game over", "over", "stopped", "shut down", undefined] as const)
    const over = ending === "over" || ending === "game over"
    const players = "ABCD".slice(0, 1 + Math.floor(random() * 4)).split("").map((letter) => ({
      letter,
      name: pick(names),
      purse: pick([0, 10, 50, 50, 60])
    }))
    // A game over was played until its gold ran out: its last player found the rest.
    if (over) players[players.length - 1]!.purse = 250 - players.slice(0, -1).reduce((sum, each) => sum + each.purse, 0)
    dropRecording(dataDir, id, handmadeRecording({ map: file, started: new Date(startedMs).toISOString(), players, ...(ending ? { end: ending } : {}) }))
    const outcome: Outcome = ending === undefined ? "interrupted" : over ? "over" : "stopped"
    return { id, startedMs, map, outcome, players: ending ? players : [] }
  })
}

/** Every page of a query, followed by `next` to the end. */
const allPages = (archive: ArchiveService, filter: { player?: string; map?: string }, limit: number) =>
  Effect.gen(function*() {
    const pages = []
    let before: string | undefined
    do {
      const page = yield* archive.pastGames({ ...filter, before, limit })
      pages.push(page.games)
      before = page.next
    } while (before !== undefined)
    return pages
  })

const filters = [{}, { player: "ALICE" }, { player: "bob" }, { player: "nobody" }, { map: "Main" }, { map: "hole", player: "Cy" }]

const agreesWithReference = (archive: ArchiveService, games: ReadonlyArray<ReferenceGame>) =>
  Effect.gen(function*() {
    for (const filter of filters) {
      const expected = referencePastGames(games, filter)
      for (const limit of [1, 4, 100]) {
        const pages = yield* allPages(archive, filter, limit)
        expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true)
        const listed = pages.flat()
        expect(listed.map((game) => game.id), `${JSON.stringify(filter)} by ${limit}`).toEqual(expected.map((game) => game.id))
        expect(listed.map((game) => game.standings)).toEqual(expected.map(referenceStandings))
      }
    }
    const board = yield* archive.leaderboard({ limit: 100 })
    expect(board.map((line) => ({ ...line, name: line.name.toLowerCase() }))).toEqual(referenceLeaderboard(games))
    expect(yield* archive.leaderboard({ player: "BOB" })).toEqual(board.filter((line) => line.name === "Bob"))
  })

describe("the archive's queries", () => {
  it.scoped("pages, filters and the leaderboard agree with the plain reference; dropping games makes the leaderboard again", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const games = randomArchive(dataDir, 90)
      const archive = yield* openArchive({ dataDir, create: true })
      const owner = yield* archive.own
      const done = yield* owner.reconcile(maps.map(([name, file]) => ({ name, mapText: mapTextOf(file) })))
      expect(done.indexed).toHaveLength(90)
      expect(new Set(games.map((game) => game.outcome))).toEqual(new Set(["over", "stopped", "interrupted"]))
      yield* agreesWithReference(archive, games)

      const gone = games.filter((game) => game.outcome !== "interrupted").slice(0, 12)
      for (const game of gone) rmSync(join(dataDir, "games", `${game.id}.ndjson`))
      expect([...(yield* owner.reconcile()).removed].sort()).toEqual(gone.map((game) => game.id).sort())
      yield* agreesWithReference(archive, games.filter((game) => !gone.includes(game)))
    }))

  it.scoped("a page limit out of range is brought within 1..100, and an empty filter is none", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      randomArchive(dataDir, 3)
      const archive = yield* openArchive({ dataDir, create: true })
      yield* Effect.scoped(Effect.flatMap(archive.own, (owner) => owner.reconcile()))
      expect((yield* archive.pastGames({ limit: 0 })).games).toHaveLength(1)
      expect((yield* archive.pastGames({ limit: 1000, player: " ", map: "" })).games).toHaveLength(3)
    }))
})

/** How SQLite runs a statement: one line per step. */
const plan = (sql: SqlClient.SqlClient, statement: Statement<unknown>) => {
  const [text, params] = statement.compile()
  return Effect.map(sql.unsafe<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params), (rows) => rows.map((row) => row.detail))
}

/**
 * Indexed: each table is searched by an index or its primary key, or walked in an index's
 * order under a LIMIT (the newest games, the leaderboard's top); never scanned whole,
 * never sorted.
 */
const indexed = (steps: ReadonlyArray<string>) =>
  steps.every((step) =>
    /^SEARCH \w+ USING (COVERING INDEX \w+|INDEX \w+|PRIMARY KEY) \(/.test(step) ||
    /^SCAN \w+ USING (COVERING )?INDEX \w+$/.test(step) ||
    step === "USE TEMP B-TREE FOR DISTINCT"
  )

describe("every query the archive makes goes by an index (EXPLAIN QUERY PLAN)", () => {
  it.scoped("pages with every filter, with and without a cursor; one game; standings; the leaderboard; the games in play; a map's name", () =>
    Effect.gen(function*() {
      const sql = yield* openDatabase(freshDir())
      const cursor = { startedMs: 1, id: "x" }
      const statements: Array<[string, Statement<unknown>, boolean]> = []
      for (const player of [undefined, "alice"]) {
        for (const map of [undefined, "main"]) {
          for (const at of [undefined, cursor]) {
            const filter = { player, map, cursor: at, rows: 21 }
            statements.push([`page ${JSON.stringify(filter)}`, pastGamesStatement(sql, filter), true])
          }
        }
      }
      statements.push(
        ["one game", gameStatement(sql, "x"), false],
        ["standings", playersStatement(sql, ["x", "y"]), false],
        ["leaderboard", leadersStatement(sql, undefined, 20), true],
        ["a name's line", leadersStatement(sql, "alice", 20), false],
        ["a map's name", mapNameStatement(sql, "9c2f1a3b"), false]
      )
      for (const [what, statement, limited] of statements) {
        const steps = yield* plan(sql, statement)
        expect(indexed(steps), `${what}: ${steps.join(" | ")}`).toBe(true)
        // Only a LIMITed walk in an index's order may start at one end of it.
        if (!limited) expect(steps.some((step) => step.startsWith("SCAN")), `${what}: ${steps.join(" | ")}`).toBe(false)
      }
      // The partial index holds only the games in play: walking all of it reads those and no more.
      expect(yield* plan(sql, playingStatement(sql))).toEqual(["SCAN games USING COVERING INDEX games_playing"])
      const filtered = yield* plan(sql, pastGamesStatement(sql, { player: "alice", map: "main", cursor, rows: 21 }))
      expect(filtered[0]).toBe("SEARCH p USING COVERING INDEX players_by_name_map (name=? AND map_name=? AND (started_ms,game_id)<(?,?))")
    }))
})
