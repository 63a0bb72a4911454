import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { recordingFacts } from "../src/archive/facts.js"
import { Program, projectDir } from "./cli/process.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { everyGame, openArchive, openDatabase } from "./archive/open.js"
import { scratchFolders } from "./archive/recordings.js"
import { referenceLeaderboard } from "./archive/reference.js"

const freshDir = scratchFolders("archive-crash")

describe("after SIGKILL of a process writing games", () => {
  it.scopedLive("nothing recorded is lost, the games in play are interrupted but replay, and the index is sound and agrees with the files", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const child = Program.start([process.execPath, "--import", "tsx", join(projectDir, "test/archive/crash-child.ts"), dataDir])
      const ready = yield* Effect.promise(() => child.line(/^ready /, 60_000))
      const { ended, playing } = JSON.parse(ready.slice("ready ".length)) as { ended: Array<string>; playing: Array<string> }
      // Killed while it starts, records and ends more games.
      yield* Effect.promise(() => child.line(/^churned 3$/, 30_000))
      child.child.kill("SIGKILL")
      expect(yield* Effect.promise(() => child.exited)).toBe(null)

      const archive = yield* openArchive({ dataDir, create: false })
      const done = yield* Effect.flatMap(archive.own, (owner) => owner.reconcile())
      expect(done.interrupted).toEqual(expect.arrayContaining(playing))

      const sql = yield* openDatabase(dataDir)
      expect(yield* sql`PRAGMA integrity_check`).toEqual([{ integrity_check: "ok" }])

      const games = yield* everyGame(archive)
      const byId = new Map(games.map((game) => [game.id, game]))
      for (const id of ended) expect(byId.get(id)?.outcome, id).toBe("over")
      for (const id of playing) expect(byId.get(id)?.outcome, id).toBe("interrupted")
      expect(games.every((game) => game.outcome === "over" || game.outcome === "interrupted")).toBe(true)

      // The index agrees with the files: each recording is a row made from it, or was skipped with a reason; each row has its file.
      const files = readdirSync(join(dataDir, "games")).map((file) => file.replace(/\.ndjson$/, ""))
      const skipped = new Set(done.skipped.map((each) => each.file))
      for (const id of files) {
        const facts = yield* Effect.either(recordingFacts(`games/${id}.ndjson`, readFileSync(join(dataDir, "games", `${id}.ndjson`), "utf8")))
        if (Either.isLeft(facts)) {
          // Only a recording whose header never reached the disk (killed as it started).
          expect(skipped.has(`games/${id}.ndjson`), facts.left.message).toBe(true)
          expect(facts.left.reason).toMatch(/^(the file is empty|not a nuggets recording|line 1: .*)$/)
          continue
        }
        const game = byId.get(id)!
        expect(game, id).toBeDefined()
        expect(game).toMatchObject({
          started: new Date(facts.right.startedMs).toISOString(),
          durationMs: facts.right.durationMs,
          moves: facts.right.moves,
          outcome: facts.right.end ?? "interrupted",
          standings: facts.right.standings
        })
      }
      expect(games.every((game) => files.includes(game.id))).toBe(true)
      const board = yield* archive.leaderboard({ limit: 100 })
      const reference = referenceLeaderboard(games.map((game) => ({
        id: game.id,
        startedMs: Date.parse(game.started),
        map: game.map,
        outcome: game.outcome,
        players: game.standings
      })))
      expect(board.map((line) => ({ ...line, name: line.name.toLowerCase() }))).toEqual(reference)

      // Every game replays, checked: the finished ones to their end, the ones cut short to where they stopped.
      for (const { id } of games) {
        const file = join(dataDir, "games", `${id}.ndjson`)
        const checked = yield* Effect.promise(() => nuggetsInProcess("replay", file, "--check"))
        expect(checked.stdout, checked.stderr).toMatch(/: OK — \d+ moves, \d+ checkpoints (match \(the recording stops before the end\)|and the summary match)\n$/)
      }
      const cast = yield* Effect.promise(() => nuggetsInProcess("replay", join(dataDir, "games", `${playing[0]}.ndjson`), "--as", "A", "--cast", "-"))
      expect(cast.code, cast.stderr).toBe(0)
      expect(cast.stdout.split("\n").length).toBeGreaterThan(10)
    }), 120_000)
})
