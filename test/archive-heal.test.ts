/**
 * A damaged index heals from the recordings, which are the truth: at start (a file damaged
 * in its middle, a file that is no database), and after damage found while a host runs (it
 * is said once, the archive answers 503, games go on being recorded, and the next start
 * makes the index again). A recording with a bad line is indexed up to it. Real files, real
 * SQLite, a real host.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Random } from "effect"
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import { archiveFiles } from "../src/archive/dataDir.js"
import { openClient } from "../src/archive/sqlite.js"
import { mapText } from "../src/core/map.js"
import { builtInMaps } from "../src/host/maps.js"
import { parseRecording } from "../src/recording/format.js"
import { openLineFile } from "../src/recording/writer.js"
import { everyGame, openArchive } from "./archive/open.js"
import { playRecorded } from "./archive/play.js"
import { scratchFolders } from "./archive/recordings.js"
import { call, postGame, startHost, type TestHost, untilShown } from "./host/harness.js"
import { TestClient } from "./server/harness.js"
import { loadMap } from "./support.js"
import { nuggetsInProcess } from "./cli/in-process.js"

const freshDir = scratchFolders("archive-heal")
const [, small, hole] = builtInMaps()
/** A map no host here offers: only the index knows its name. */
const cramped = { name: "cramped", map: loadMap("cramped.txt") }
const names = ["Ann", "Bob", "Cy", "Di", "Ed"]

/**
 * `count` games played by the real core, recorded and indexed in the archive in `dataDir` as
 * a host records and indexes them: on three maps (every seventh on one the host does not
 * offer), two or three players from five names, every fifth stopped early. Gives the
 * archive's games and leaderboard as they stand.
 */
const archivedGames = (dataDir: string, count: number) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const archive = yield* openArchive({ dataDir, create: true })
    const owner = yield* archive.own
    for (let i = 0; i < count; i++) {
      const map = i % 7 === 3 ? cramped : i % 2 === 0 ? small! : hole!
      const started = yield* owner.gameStarted({ mapName: map.name, mapText: mapText(map.map), seed: i, variant: "classic", dialect: "2019" })
      const players = names.filter((_, k) => (i + k) % 5 < 2 + (i % 2))
      yield* Effect.scoped(playRecorded({ to: started.recording, map: map.map, seed: i, players, ...(i % 5 === 4 ? { moves: 25 } : {}) }))
      yield* owner.gameEnded(started.id)
    }
    return { games: yield* everyGame(archive), leaders: yield* archive.leaderboard({ limit: 100 }) }
  })))

/** `length` bytes from a generator seeded with `seed`: the same damage at every run. */
const seededBytes = (seed: number, length: number) =>
  Uint8Array.from(Effect.runSync(Effect.replicateEffect(Random.nextIntBetween(0, 256), length).pipe(Effect.withRandom(Random.make(seed)))))

/** Writes `bytes` over the file at `offset`, as a failing disk might. */
const overwrite = (file: string, offset: number, bytes: Uint8Array) => {
  const fd = openSync(file, "r+")
  try {
    writeSync(fd, bytes, 0, bytes.length, offset)
  } finally {
    closeSync(fd)
  }
}

/** The data directory's files that are not recordings, by name. */
const filesBeside = (dataDir: string) => readdirSync(dataDir).filter((name) => name !== "games").sort()

const everyHostGame = (host: TestHost) => Effect.runPromise(everyGame(host.archive))
const warnings = (host: TestHost) => host.log.filter((line) => line.startsWith("WARN "))

describe("a damaged index, found at start", () => {
  it("is moved aside, kept byte for byte, and made again from the recordings: every game and the leaderboard as they were, in one warning", async () => {
    const dataDir = freshDir()
    const before = await archivedGames(dataDir, 30)
    // Every fifth is stopped early, but one on the cramped map, which ends in fewer keys.
    expect(before.games.filter((game) => game.outcome === "stopped")).toHaveLength(5)
    expect(before.leaders.length).toBeGreaterThan(3)
    expect(before.games.filter((game) => game.map === "cramped")).toHaveLength(4)
    const { database } = archiveFiles(dataDir)
    const size = statSync(database).size
    overwrite(database, Math.floor((size - 8192) / 2), seededBytes(34, 8192))
    const damaged = readFileSync(database)

    const host = await startHost({ dataDir })
    try {
      const [line, ...others] = warnings(host)
      expect(others).toEqual([])
      const said = /^WARN the archive's index was damaged \(quick_check: (.+)\): it is kept as (.+), and a new one was made from the recordings: 30 games$/
        .exec(line ?? "")
      expect(said, line).not.toBeNull()
      const movedTo = said![2]!
      expect(movedTo).toMatch(new RegExp(`^${database.replaceAll(".", "\\.")}\\.damaged-\\d{8}T\\d{6}Z$`))
      expect(readFileSync(movedTo).equals(damaged)).toBe(true)
      expect(filesBeside(dataDir)).toEqual(expect.arrayContaining(["archive.db", movedTo.slice(dataDir.length + 1)]))
      expect(host.log.some((each) => each.includes("recordings indexed"))).toBe(false)

      expect(await everyHostGame(host)).toEqual(before.games)
      expect(await Effect.runPromise(host.archive.leaderboard({ limit: 100 }))).toEqual(before.leaders)
      expect((await call(host.url, "/api/leaderboard?limit=100")).body.leaders).toHaveLength(before.leaders.length)
    } finally {
      await host.stop({ keepData: true })
    }
    // Healed: the next start finds nothing to say.
    const again = await startHost({ dataDir })
    await again.stop()
    expect(warnings(again)).toEqual([])
  })

  it("a file that is no database is moved aside as it was; a directory another process holds is left alone", async () => {
    const dataDir = freshDir()
    const before = await archivedGames(dataDir, 3)
    const { database } = archiveFiles(dataDir)
    const notes = "these are someone's notes, not a database\n".repeat(200)
    writeFileSync(database, notes)

    const host = await startHost({ dataDir })
    try {
      expect(warnings(host)).toEqual([expect.stringMatching(/^WARN the archive's index was damaged \(file is not a database\): it is kept as .+, and a new one was made from the recordings: 3 games$/)])
      const aside = filesBeside(dataDir).filter((name) => name.startsWith("archive.db.damaged-"))
      expect(aside).toHaveLength(1)
      expect(readFileSync(join(dataDir, aside[0]!), "utf8")).toBe(notes)
      expect(await everyHostGame(host)).toEqual(before.games)

      // While the host holds the directory, another that finds its index no database moves nothing: it is refused.
      writeFileSync(database, notes)
      await expect(startHost({ dataDir })).rejects.toThrow(`${dataDir} — in use by another nuggets process (PID ${process.pid})`)
      expect(filesBeside(dataDir).filter((name) => name.startsWith("archive.db.damaged-"))).toEqual(aside)
      expect(readFileSync(database, "utf8")).toBe(notes)
    } finally {
      await host.stop()
    }
  })
})

describe("`nuggets archive list` on a damaged index", () => {
  it("with no host on the directory, sets it aside and makes it again, says so in one line, and lists the games as they were", async () => {
    const dataDir = freshDir()
    const before = await archivedGames(dataDir, 8)
    const { database } = archiveFiles(dataDir)
    overwrite(database, Math.floor((statSync(database).size - 8192) / 2), seededBytes(36, 8192))

    const listed = await nuggetsInProcess("archive", "list", "--data", dataDir, "--limit", "100")
    expect(listed).toMatchObject({ code: 0, log: "" })
    expect(listed.stderr).toMatch(new RegExp(
      `^${dataDir}: the archive's index was damaged \\(.+\\): it is kept as ${database}\\.damaged-\\d{8}T\\d{6}Z, and a new one was made from the recordings: 8 games\n$`
    ))
    expect(listed.stdout.split("\n").filter((line) => / cramped /.test(line))).toHaveLength(1)
    expect(await Effect.runPromise(Effect.scoped(Effect.flatMap(openArchive({ dataDir, create: false }), everyGame)))).toEqual(before.games)
    expect(await nuggetsInProcess("archive", "list", "--data", dataDir)).toMatchObject({ code: 0, stderr: "" })
  })
})

describe("a recording with a bad line", () => {
  it("is indexed up to that line, as interrupted, with a warning naming the file and the line; the replay still refuses it", async () => {
    const dataDir = freshDir()
    const file = join(dataDir, "games", "20260101-090000-bad1.ndjson")
    mkdirSync(join(dataDir, "games"))
    await Effect.runPromise(Effect.scoped(playRecorded({ to: openLineFile(file), map: small!.map, seed: 5, players: ["Ann", "Bob"] })))
    const lines = readFileSync(file, "utf8").split("\n")
    expect(lines.at(-2)).toContain(`"end":"over"`)
    const bad = 40
    // Lines 2 to 39: the joins and moves before it, and checkpoints.
    const movesBefore = lines.slice(1, bad - 1).filter((line) => line.includes(`"message"`)).length
    lines[bad - 1] = `{"t":1234,"client":0,"mess`
    writeFileSync(file, lines.join("\n"))

    const host = await startHost({ dataDir })
    try {
      expect(warnings(host)).toEqual([
        `WARN games/20260101-090000-bad1.ndjson: line ${bad} cannot be read (not a recording entry): indexed up to the line before it, as interrupted`
      ])
      const game = await Effect.runPromise(host.archive.game("20260101-090000-bad1"))
      expect(game).toMatchObject({ outcome: "interrupted", moves: movesBefore, map: "small", winners: [] })
      expect(game.standings.map((each) => each.name).sort()).toEqual(["Ann", "Bob"])
      expect(game.nuggetsLeft).toBeGreaterThan(0)
      expect(parseRecording(readFileSync(file, "utf8"))).toEqual(Either.left(`line ${bad}: not a recording entry`))
    } finally {
      await host.stop()
    }
  })
})

describe("damage found while a host runs", () => {
  it("is said once, the archive answers 503 and says why, games go on and are counted as not indexed, and the next start makes the index again", async () => {
    const dataDir = freshDir()
    const before = await archivedGames(dataDir, 10)
    const { damaged: mark, database } = archiveFiles(dataDir)
    // A game no one is in ends soon: its end is what the damaged index cannot take.
    const host = await startHost({ dataDir, idleTimeout: Duration.millis(300) })
    let stopped = false
    try {
      expect(warnings(host)).toEqual([])
      // The disk spoils the games table's root page under the host.
      await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
        const sql = yield* openClient(database)
        yield* sql`PRAGMA wal_checkpoint(TRUNCATE)`
        const [{ page_size }] = (yield* sql<{ page_size: number }>`PRAGMA page_size`) as [{ page_size: number }]
        const [{ rootpage }] = (yield* sql<{ rootpage: number }>`SELECT rootpage FROM sqlite_schema WHERE name = 'games'`) as [{ rootpage: number }]
        overwrite(database, (rootpage - 1) * page_size, seededBytes(35, page_size))
        // SQLite keeps the pages it has read until another connection writes: a write (the header's
        // user version, as it was) makes the host read the file again, as after any other writer.
        yield* sql`PRAGMA user_version = 0`
      })))

      const answers = await Promise.all([1, 2, 3].map(() => call(host.url, "/api/archive")))
      for (const answer of answers) {
        expect(answer.status).toBe(503)
        expect(answer.body.error).toBe(
          `the archive cannot answer: ${database} — the index is damaged (database disk image is malformed): it is made again from the recordings at the next start`
        )
      }
      expect((await call(host.url, `/api/games/${before.games[0]!.id}`)).status).toBe(503)
      expect(warnings(host)).toEqual([
        `WARN the archive's index ${database} is damaged (database disk image is malformed): what meets the damage fails (503) until the next start, ` +
        `which makes a new one from the recordings (marked in ${mark})`
      ])
      expect(readFileSync(mark, "utf8")).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z database disk image is malformed\n$/)

      // Beside the host, `archive list` says what is wrong and what to do, in one line.
      expect(await nuggetsInProcess("archive", "list", "--data", dataDir)).toMatchObject({
        code: 1,
        stdout: "",
        stderr: `nuggets: ${database} — the index is damaged (database disk image is malformed): restart the host running on ${dataDir}, ` +
          "which then sets it aside and makes a new one from the recordings, which are safe\n",
        log: ""
      })

      // A game still starts and is recorded; the index cannot take it, which is counted.
      const created = await postGame(host.url, { map: "small", seed: 7 })
      expect(created.status).toBe(201)
      const player = await TestClient.open(created.body.port)
      try {
        player.send("PLAY Fay")
        expect(await player.next()).toBe("OK A")
        player.send("KEY Q")
        await player.nextStarting("QUIT")
      } finally {
        await player.close()
      }
      await untilShown(host.games, () => host.games.unarchived().length === 0)
      expect((await call(host.url, "/metrics")).body).toMatch(/^nuggets_archive_write_failures_total 1$/m)
      expect(warnings(host)).toHaveLength(2)
      expect(warnings(host)[1]).toMatch(/^WARN game \S+: the archive could not index it/)

      await host.stop({ keepData: true })
      stopped = true
      const next = await startHost({ dataDir })
      try {
        expect(warnings(next)).toEqual([
          expect.stringMatching(
            /^WARN the archive's index was damaged \(found while in use, \S+ database disk image is malformed\): it is kept as \S+, and a new one was made from the recordings: 11 games$/
          )
        ])
        expect(existsSync(mark)).toBe(false)
        const games = await everyHostGame(next)
        expect(games.filter((game) => game.id !== created.body.id)).toEqual(before.games)
        expect(games.find((game) => game.id === created.body.id)).toMatchObject({ outcome: "stopped", standings: [{ name: "Fay" }] })
      } finally {
        await next.stop()
      }
    } finally {
      if (!stopped) await host.stop()
    }
  })
})
