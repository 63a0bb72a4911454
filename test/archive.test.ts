import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer, Scope } from "effect"
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Archive, archiveLayer, ArchiveOwner, archiveOwnerLayer } from "../src/archive/archive.js"
import { ArchiveBackend } from "../src/archive/backend.js"
import { dataDirectory } from "../src/archive/dataDir.js"
import { recordingFiles } from "../src/archive/recordingFiles.js"
import { openClient, sqliteBackend } from "../src/archive/sqlite.js"
import { mapText } from "../src/core/map.js"
import { parseStandings } from "../src/protocol/summary.js"
import { digestOf, parseRecording } from "../src/recording/format.js"
import { openLineFile } from "../src/recording/writer.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { openArchive } from "./archive/open.js"
import { playRecorded } from "./archive/play.js"
import { dropRecording, handmadeRecording, mapTextOf, scratchFolders, withoutStandings } from "./archive/recordings.js"
import { loadMap, walkRecording } from "./support.js"

const freshDir = scratchFolders("archive")
/** Where the archive in `dataDir` keeps the recording of `id`. */
const recordingFile = (dataDir: string, id: string) => join(dataDir, "games", `${id}.ndjson`)
const small = loadMap("small.txt")
const smallStart = { mapName: "small", mapText: mapText(small), seed: 3, variant: "classic", dialect: "2019" } as const
/** The archive in a new directory, owned. */
const ownedArchive = (dataDir = freshDir()) =>
  Effect.gen(function*() {
    const archive = yield* openArchive({ dataDir, create: true })
    return { archive, owner: yield* archive.own, dataDir }
  })

describe("the data directory", () => {
  const base = { env: {}, home: "/home/ann", cwd: "/work" }
  it("is --data when given, relative to the current folder", () => {
    expect(dataDirectory({ ...base, flag: "data" })).toBe("/work/data")
    expect(dataDirectory({ ...base, flag: "/srv/nuggets", env: { XDG_DATA_HOME: "/x" } })).toBe("/srv/nuggets")
  })
  it("else $XDG_DATA_HOME/nuggets, else ~/.local/share/nuggets; a relative or empty XDG_DATA_HOME is ignored, as the convention says", () => {
    expect(dataDirectory({ ...base, flag: undefined, env: { XDG_DATA_HOME: "/home/ann/data" } })).toBe("/home/ann/data/nuggets")
    expect(dataDirectory({ ...base, flag: undefined })).toBe("/home/ann/.local/share/nuggets")
    expect(dataDirectory({ ...base, flag: undefined, env: { XDG_DATA_HOME: "" } })).toBe("/home/ann/.local/share/nuggets")
    expect(dataDirectory({ ...base, flag: undefined, env: { XDG_DATA_HOME: "data" } })).toBe("/home/ann/.local/share/nuggets")
  })
})

describe("a game's life in the archive", () => {
  it.scoped("started: a row in play and a file to record in; ended: the row made from the recording, once", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      const started = yield* owner.gameStarted(smallStart)
      expect(started.id).toMatch(/^\d{8}-\d{6}-[a-z0-9]{4}$/)
      const startedFile = recordingFile(dataDir, started.id)
      expect(existsSync(startedFile)).toBe(false)
      expect(yield* archive.game(started.id)).toMatchObject({ outcome: "playing", map: "small", seed: 3, standings: [] })
      expect((yield* archive.pastGames()).games).toEqual([])

      const final = yield* Effect.scoped(playRecorded({ to: started.recording, map: small, seed: 3, players: ["Alice", "Bob"] }))
      expect(final.over).toBe(true)
      const ended = yield* owner.gameEnded(started.id)
      const recording = Either.getOrThrow(parseRecording(readFileSync(startedFile, "utf8")))
      const end = recording.entries.at(-1)!
      const summary = parseStandings("summary" in end ? end.summary : "")!
      expect(ended).toMatchObject({
        outcome: "over",
        nuggetsLeft: 0,
        started: recording.header.started,
        durationMs: end.t,
        moves: recording.entries.filter((entry) => "message" in entry).length,
        mapDigest: recording.header.mapDigest
      })
      expect(ended.standings.map(({ letter, name, purse }) => ({ letter, name, purse })))
        .toEqual([...summary].sort((a, b) => b.purse - a.purse))
      expect(ended.winners).toEqual([ended.standings[0]!.name])
      expect(yield* owner.gameEnded(started.id)).toEqual(ended)
      expect((yield* archive.pastGames()).games).toEqual([ended])
      const board = yield* archive.leaderboard()
      expect(board.map((each) => [each.name, each.games, each.wins, each.nuggets])).toEqual(
        ended.standings.map((each) => [each.name, 1, each.rank === 1 ? 1 : 0, each.purse])
      )
    }))

  it.scoped("a defect ends a game as failed, with its words; a game stopped early has standings but no winner", () =>
    Effect.gen(function*() {
      const { owner } = yield* ownedArchive()
      const started = yield* owner.gameStarted(smallStart)
      yield* Effect.scoped(playRecorded({ to: started.recording, map: small, seed: 3, players: ["Alice", "Bob"], moves: 6 }))
      const failed = yield* owner.gameEnded(started.id, { defect: "a rule threw" })
      expect(failed).toMatchObject({ outcome: "failed", failure: "a rule threw", winners: [] })
      expect(failed.standings.map((each) => each.name).sort()).toEqual(["Alice", "Bob"])
      const unknown = yield* Effect.flip(owner.gameEnded("no-such-game"))
      expect(unknown).toMatchObject({ _tag: "ArchiveError", reason: "UnknownGame" })
    }))

  it.scoped("equal purses share a rank, and each is a winner", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      const players = [{ letter: "A", name: "Alice", purse: 100 }, { letter: "B", name: "Bob", purse: 50 }, { letter: "C", name: "Cy", purse: 100 }]
      const file = dropRecording(dataDir, "tie", handmadeRecording({ map: "small.txt", started: "2026-01-01T10:00:00Z", players, end: "over" }))
      const game = yield* owner.indexRecording(file)
      expect(game.standings).toEqual([
        { rank: 1, letter: "A", name: "Alice", purse: 100 },
        { rank: 1, letter: "C", name: "Cy", purse: 100 },
        { rank: 3, letter: "B", name: "Bob", purse: 50 }
      ])
      expect(game.winners).toEqual(["Alice", "Cy"])
      expect((yield* archive.leaderboard()).map((each) => [each.name, each.wins])).toEqual([["Alice", 1], ["Cy", 1], ["Bob", 0]])
      expect(yield* owner.indexRecording("tie.ndjson")).toEqual(game)
      expect((yield* archive.leaderboard()).map((each) => each.games)).toEqual([1, 1, 1])
    }))
})

describe("a game's end as data", () => {
  /** A game played and recorded by today's recorder, in `DATA/NAME.ndjson` (outside `games/`): its text and its end line. */
  const recorded = (dataDir: string, name: string, moves?: number) =>
    Effect.gen(function*() {
      const file = join(dataDir, `${name}.ndjson`)
      yield* Effect.scoped(playRecorded({ to: openLineFile(file), map: small, seed: 3, players: ["Alice", "Bob", "Cy"], ...(moves === undefined ? {} : { moves }) }))
      const text = readFileSync(file, "utf8")
      const end = Either.getOrThrow(parseRecording(text)).entries.at(-1)!
      if (!("end" in end)) throw new Error(`${file} has no end`)
      return { text, end }
    })

  it.scoped("the end line carries the standings, ranked, beside the summary's text, and the archive indexes them from there", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      for (const [name, moves] of [["over", undefined], ["stopped", 6]] as const) {
        const { text, end } = yield* recorded(dataDir, name, moves)
        expect(end.end).toBe(moves === undefined ? "over" : "stopped")
        const fromText = parseStandings(end.summary)!
        expect(end.standings).toEqual(
          [...fromText].sort((a, b) => b.purse - a.purse || a.letter.localeCompare(b.letter)).map((each) => ({
            rank: 1 + fromText.filter((other) => other.purse > each.purse).length,
            letter: each.letter,
            name: each.name,
            purse: each.purse
          }))
        )
        yield* owner.indexRecording(dropRecording(dataDir, name, text))
        expect((yield* archive.game(name)).standings).toEqual(end.standings)
      }
    }))

  it.scoped("a game stopped with nuggets left has no winner and says how many; the leaderboard counts it as played, not won", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      const { text, end } = yield* recorded(dataDir, "cut", 6)
      expect(end.end).toBe("stopped")
      const stopped = yield* owner.indexRecording(dropRecording(dataDir, "cut", text))
      const found = stopped.standings.reduce((sum, each) => sum + each.purse, 0)
      expect(stopped).toMatchObject({ outcome: "stopped", winners: [], nuggetsLeft: 250 - found })
      // Recorded before the words were one: a game whose last player left said `game over` too.
      const players = [{ letter: "A", name: "Alice", purse: 30 }, { letter: "B", name: "Bob", purse: 20 }]
      const left = yield* owner.indexRecording(
        dropRecording(dataDir, "left", handmadeRecording({ map: "small.txt", started: "2026-01-01T10:00:00Z", players, end: "game over" }))
      )
      expect(left).toMatchObject({ outcome: "stopped", winners: [], nuggetsLeft: 200 })
      const board = yield* archive.leaderboard({ player: "alice" })
      expect(board).toEqual([{ name: "Alice", games: 2, wins: 0, nuggets: 30 + stopped.standings.find((each) => each.name === "Alice")!.purse, best: expect.anything() }])
    }))

  it.scoped("a recording made before the end line carried them is indexed with its standings, replayed by the real core, and still replays", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const games = []
      for (const [name, moves] of [["old-over", undefined], ["old-stopped", 6]] as const) {
        const { text, end } = yield* recorded(dataDir, name, moves)
        const old = withoutStandings(text)
        expect(old).not.toContain("standings")
        expect(old.split("\n").at(-2)).toBe(JSON.stringify({ t: end.t, end: end.end, summary: end.summary }))
        games.push({ name, standings: end.standings!, file: dropRecording(dataDir, name, old) })
      }
      const { archive, owner } = yield* ownedArchive(dataDir)
      expect([...(yield* owner.reconcile()).indexed].sort()).toEqual(["old-over", "old-stopped"])
      for (const game of games) {
        expect((yield* archive.game(game.name)).standings, game.name).toEqual(game.standings)
        const checked = yield* Effect.promise(() => nuggetsInProcess("replay", game.file, "--check"))
        expect(checked.stdout, checked.stderr).toMatch(/: OK — \d+ moves, \d+ checkpoints and the summary match/)
      }
      expect((yield* archive.game("old-over")).winners).toEqual([games[0]!.standings[0]!.name])
    }))

  it.scoped("the archive reads the standings' data, never the summary's text", () =>
    Effect.gen(function*() {
      const { owner, dataDir } = yield* ownedArchive()
      const players = [{ letter: "A", name: "Alice", purse: 100 }, { letter: "B", name: "Bob", purse: 150 }]
      const file = dropRecording(dataDir, "told", handmadeRecording({
        map: "small.txt",
        started: "2026-01-01T10:00:00Z",
        players,
        end: "game over",
        summary: "A   999 Mallory\nB     1 Trent\n"
      }))
      const game = yield* owner.indexRecording(file)
      expect(game.standings).toEqual([{ rank: 1, letter: "B", name: "Bob", purse: 150 }, { rank: 2, letter: "A", name: "Alice", purse: 100 }])
      expect(game.winners).toEqual(["Bob"])
    }))
})

describe("reconciling the index with the recordings on disk", () => {
  it.scoped("indexes recordings with no row, calls games in play interrupted, drops rows whose file is gone, and skips what it cannot read", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const scope = yield* Scope.make()
      const first = yield* ownedArchive(dataDir).pipe(Scope.extend(scope))
      // Games the host had in play when it died: one whose recording ended before it could say so, one cut short, one never written.
      const endedLate = yield* first.owner.gameStarted(smallStart)
      yield* Effect.scoped(playRecorded({ to: endedLate.recording, map: small, seed: 3, players: ["Ann"] }))
      const cutShort = yield* first.owner.gameStarted({ ...smallStart, mapName: "main", mapText: mapTextOf("main.txt"), seed: 6 })
      writeFileSync(recordingFile(dataDir, cutShort.id), walkRecording("hhhhll"))
      const neverWritten = yield* first.owner.gameStarted(smallStart)
      const deleted = yield* first.owner.indexRecording(
        dropRecording(dataDir, "deleted", handmadeRecording({ map: "small.txt", started: "2026-01-01T00:00:00Z", end: "shut down" }))
      )
      rmSync(join(dataDir, "games", `${deleted.id}.ndjson`))
      yield* Scope.close(scope, Exit.void)

      dropRecording(dataDir, "dropped", handmadeRecording({
        map: "hole.txt",
        started: "2026-01-02T00:00:00Z",
        players: [{ letter: "A", name: "Dee", purse: 250 }],
        end: "game over",
        durationMs: 61_000
      }))
      const empty = dropRecording(dataDir, "empty", "")
      const garbage = dropRecording(dataDir, "garbage", "not json\n")
      writeFileSync(join(dataDir, "games", "notes.txt"), "not a recording")

      const { archive, owner } = yield* ownedArchive(dataDir)
      const done = yield* owner.reconcile([{ name: "hole", mapText: mapTextOf("hole.txt") }])
      expect([...done.indexed].sort()).toEqual(["dropped"])
      expect(done.interrupted).toEqual([cutShort.id])
      expect([...done.removed].sort()).toEqual([deleted.id, neverWritten.id].sort())
      expect(done.skipped).toEqual([
        { file: "games/empty.ndjson", reason: "the file is empty" },
        { file: "games/garbage.ndjson", reason: "not a nuggets recording" }
      ])
      expect(readFileSync(empty, "utf8")).toBe("")
      expect(readFileSync(garbage, "utf8")).toBe("not json\n")

      expect(yield* archive.game(endedLate.id)).toMatchObject({ outcome: "over", winners: ["Ann"] })
      expect(yield* archive.game(cutShort.id)).toMatchObject({ outcome: "interrupted", map: "main", moves: 7, winners: [] })
      expect((yield* archive.game(cutShort.id)).standings.map((each) => each.name)).toEqual(["Alice"])
      expect(yield* archive.game("dropped")).toMatchObject({ outcome: "over", map: "hole", durationMs: 61_000, winners: ["Dee"] })
      expect(yield* Effect.flip(archive.game(deleted.id))).toMatchObject({ reason: "UnknownGame" })
      const again = yield* owner.reconcile()
      expect(again).toMatchObject({ indexed: [], interrupted: [], removed: [] })
      expect(again.skipped).toHaveLength(2)

      // Replayable to where it stopped, and it checks.
      const checked = yield* Effect.promise(() => nuggetsInProcess("replay", recordingFile(dataDir, cutShort.id), "--check"))
      expect(checked.stdout).toBe(`${recordingFile(dataDir, cutShort.id)}: OK — 7 moves, 0 checkpoints match (the recording stops before the end)\n`)
    }))

  it.scoped("names a recording's map as the host does, else as an earlier game did, else by its digest", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      const recording = (started: string, map: string) => handmadeRecording({ map, started, end: "shut down" })
      dropRecording(dataDir, "a", recording("2026-01-01T00:00:00Z", "main.txt"))
      yield* owner.reconcile([{ name: "The Main", mapText: mapTextOf("main.txt") }])
      dropRecording(dataDir, "b", recording("2026-01-02T00:00:00Z", "main.txt"))
      dropRecording(dataDir, "c", recording("2026-01-03T00:00:00Z", "cramped.txt"))
      yield* owner.reconcile()
      const maps = (yield* archive.pastGames()).games.map((game) => [game.id, game.map])
      expect(maps).toEqual([["c", `map ${(yield* archive.game("c")).mapDigest}`], ["b", "The Main"], ["a", "The Main"]])
    }))

  it.scoped("indexes only recordings in DATA/games/, and says why it cannot read one", () =>
    Effect.gen(function*() {
      const { owner, dataDir } = yield* ownedArchive()
      const outside = join(dataDir, "elsewhere.ndjson")
      writeFileSync(outside, handmadeRecording({ map: "small.txt", started: "2026-01-01T00:00:00Z" }))
      expect(yield* Effect.flip(owner.indexRecording(outside))).toMatchObject({ _tag: "UnreadableRecording" })
      const bad = dropRecording(dataDir, "bad", handmadeRecording({ map: "small.txt", started: "someday" }))
      const error = yield* Effect.flip(owner.indexRecording(bad))
      expect(error).toMatchObject({ _tag: "UnreadableRecording", file: "games/bad.ndjson", reason: `its start, "someday", is not a time` })
      expect(error.message).toBe(`games/bad.ndjson — its start, "someday", is not a time`)
    }))
})

describe("the archive as a service", () => {
  it.scoped("reads a game's recording as it stands, byte for byte; none for a game not in it, or whose recording is gone", () =>
    Effect.gen(function*() {
      const { archive, owner, dataDir } = yield* ownedArchive()
      const started = yield* owner.gameStarted(smallStart)
      expect(yield* Effect.flip(archive.recording(started.id))).toMatchObject({ reason: "UnknownGame", message: `the recording of ${started.id} is gone` })
      yield* Effect.scoped(playRecorded({ to: started.recording, map: small, seed: 3, players: ["Alice"], moves: 3 }))
      expect(Buffer.from(yield* archive.recording(started.id)).equals(readFileSync(recordingFile(dataDir, started.id)))).toBe(true)
      expect(yield* Effect.flip(archive.recording("20990101-000000-zzzz"))).toMatchObject({ reason: "UnknownGame" })
      rmSync(join(dataDir, "games", `${started.id}.ndjson`))
      expect(yield* Effect.flip(archive.recording(started.id))).toMatchObject({ reason: "UnknownGame", message: `the recording of ${started.id} is gone` })
    }))

  it.effect("runs on whatever SQL client the context gives it: here SQLite in memory, with recordings in a folder and no lock", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const file = dropRecording(dataDir, "g", handmadeRecording({ map: "small.txt", started: "2026-01-01T00:00:00Z", players: [{ letter: "A", name: "Ann", purse: 250 }], end: "game over" }))
      const backend = Layer.succeed(ArchiveBackend, { database: "memory", recordings: recordingFiles(join(dataDir, "games")), claim: Effect.void, oneWriter: true })
      const database = SqliteClient.layer({ filename: ":memory:" }).pipe(Layer.provide(Reactivity.layer))
      const { listed, board } = yield* Effect.gen(function*() {
        const archive = yield* Archive
        expect((yield* Effect.scoped(Effect.flatMap(archive.own, (owner) => owner.reconcile()))).indexed).toEqual(["g"])
        return { listed: yield* archive.pastGames(), board: yield* archive.leaderboard() }
      }).pipe(Effect.provide(archiveLayer.pipe(Layer.provide(Layer.merge(backend, database)))))
      expect(listed.games.map((game) => [game.id, game.map, game.winners])).toEqual([["g", `map ${digestOf(mapTextOf("small.txt"))}`, ["Ann"]]])
      expect(board).toEqual([{ name: "Ann", games: 1, wins: 1, nuggets: 250, best: { game: "g", purse: 250 } }])
      expect(existsSync(join(dataDir, "archive.db")) || existsSync(join(dataDir, "archive.lock"))).toBe(false)
      expect(readFileSync(file, "utf8")).toContain("Ann")
    }))
})

describe("opening an archive", () => {
  it.scoped("one process owns a directory at a time; others may still read it", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      const scope = yield* Scope.make()
      const { owner } = yield* ownedArchive(dataDir).pipe(Scope.extend(scope))
      const reader = yield* openArchive({ dataDir, create: false })
      expect(yield* Effect.flip(reader.own)).toMatchObject({
        _tag: "ArchiveError",
        reason: "Busy",
        path: dataDir,
        message: `${dataDir} — in use by another nuggets process (PID ${process.pid})`
      })
      const game = yield* owner.indexRecording(
        dropRecording(dataDir, "g", handmadeRecording({ map: "small.txt", started: "2026-01-01T00:00:00Z", end: "shut down" }))
      )
      expect((yield* reader.pastGames()).games).toEqual([game])
      yield* Scope.close(scope, Exit.void)
      expect(existsSync(join(dataDir, "archive.pid"))).toBe(false)
      yield* Effect.scoped(reader.own)
    }))

  it.effect("as layers: the archive, and its owner for as long as the layer lives, as a host composes them", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      dropRecording(dataDir, "g", handmadeRecording({ map: "small.txt", started: "2026-01-01T00:00:00Z", end: "shut down" }))
      const host = archiveOwnerLayer.pipe(Layer.provideMerge(archiveLayer), Layer.provide(sqliteBackend({ dataDir, create: true })))
      const listed = yield* Effect.gen(function*() {
        expect((yield* (yield* ArchiveOwner).reconcile()).indexed).toEqual(["g"])
        return (yield* (yield* Archive).pastGames()).games.map((game) => game.id)
      }).pipe(Effect.provide(host))
      expect(listed).toEqual(["g"])
      // Released with the layer: another process could own the directory now.
      yield* Effect.scoped(Effect.flatMap(openArchive({ dataDir, create: false }), (archive) => archive.own))
    }))

  it.scoped("refuses another program's database, and leaves it as it was (a file that is no database is set aside: see archive-heal)", () =>
    Effect.gen(function*() {
      const other = freshDir()
      const theirs = yield* openArchive({ dataDir: other, create: true })
      yield* theirs.own.pipe(Effect.scoped)
      const otherDatabase = join(other, "archive.db")
      rmSync(otherDatabase)
      // Another program's SQLite file (its own table, no application id of ours).
      yield* Effect.scoped(Effect.flatMap(openClient(otherDatabase), (sql) => sql`CREATE TABLE recipes (name TEXT)`))
      const before = readFileSync(otherDatabase)
      expect(yield* Effect.flip(openArchive({ dataDir: other, create: false }))).toMatchObject({
        reason: "Open",
        message: `${otherDatabase} — not a nuggets archive: it is left as it is`
      })
      expect(readFileSync(otherDatabase).equals(before)).toBe(true)
    }))

  it.scoped("a directory that cannot be made is a Directory error with its cause; one that holds no archive is NoArchive", () =>
    Effect.gen(function*() {
      const dataDir = freshDir()
      writeFileSync(join(dataDir, "file"), "")
      const underFile = yield* Effect.flip(openArchive({ dataDir: join(dataDir, "file", "data"), create: true }))
      expect(underFile).toMatchObject({ _tag: "ArchiveError", reason: "Directory" })
      expect((underFile.cause as NodeJS.ErrnoException).code).toBe("ENOTDIR")
      expect(yield* Effect.flip(openArchive({ dataDir: join(dataDir, "missing"), create: false }))).toMatchObject({
        reason: "NoArchive",
        message: `${join(dataDir, "missing")} — no such folder`
      })
      expect(yield* Effect.flip(openArchive({ dataDir, create: false }))).toMatchObject({ reason: "NoArchive", message: `${dataDir} — no archive here` })
    }))
})

describe("nuggets archive list", () => {
  it.scoped("lists the index as it stands while a host owns the directory, indexing nothing", () =>
    Effect.gen(function*() {
      const { owner, dataDir } = yield* ownedArchive()
      yield* owner.indexRecording(dropRecording(dataDir, "kept", handmadeRecording({ map: "small.txt", started: "2026-01-01T09:00:00Z", end: "shut down" })))
      dropRecording(dataDir, "later", handmadeRecording({ map: "small.txt", started: "2026-01-02T09:00:00Z", end: "shut down" }))
      const listed = yield* Effect.promise(() => nuggetsInProcess("archive", "list", "--data", dataDir))
      expect(listed).toMatchObject({ code: 0, stderr: "" })
      expect(listed.stdout).toContain("\nkept ")
      expect(listed.stdout).not.toContain("later")
    }))


  it("indexes what it finds when no host runs, then lists the games, newest first, a page at a time", async () => {
    const smallDigest = digestOf(mapTextOf("small.txt"))
    const dataDir = freshDir()
    const alice = [{ letter: "A", name: "Alice", purse: 200 }, { letter: "B", name: "Bob", purse: 50 }]
    dropRecording(dataDir, "old", handmadeRecording({ map: "small.txt", started: "2026-01-01T09:00:00Z", players: alice, end: "over", durationMs: 65_000 }))
    dropRecording(dataDir, "new", handmadeRecording({ map: "small.txt", started: "2026-01-02T09:00:00Z", players: [alice[1]!], end: "stopped" }))
    const listed = await nuggetsInProcess("archive", "list", "--data", dataDir, "--limit", "1")
    expect(listed.stderr).toBe(`${dataDir}: 2 recordings indexed\n`)
    expect(listed.stdout).toBe([
      "GAME  STARTED (UTC)     MAP           TIME  END      LEFT  WINNER  STANDINGS",
      `new   2026-01-02 09:00  map ${smallDigest}  0:00  stopped   200  -       Bob 50`,
      "more: --before new",
      `watch one again: nuggets replay ${join(dataDir, "games", "GAME.ndjson")}`,
      ""
    ].join("\n"))
    const next = await nuggetsInProcess("archive", "list", "--data", dataDir, "--before", "new", "--player", "alice")
    expect(next.stderr).toBe("")
    expect(next.stdout).toContain(`old   2026-01-01 09:00  map ${smallDigest}  1:05  over     0  Alice   Alice 200, Bob 50\n`)
    const none = await nuggetsInProcess("archive", "list", "--data", dataDir, "--map", "elsewhere")
    expect(none).toMatchObject({ code: 0, stdout: `no games in ${dataDir}\n` })
    const unknown = await nuggetsInProcess("archive", "list", "--data", dataDir, "--before", "nope")
    expect(unknown).toMatchObject({ code: 1, stderr: `nuggets: --before — no game nope in ${dataDir}\n` })
    const missing = await nuggetsInProcess("archive", "list", "--data", join(dataDir, "nope"))
    expect(missing).toMatchObject({
      code: 1,
      stderr: `nuggets: ${join(dataDir, "nope")} — no such folder: 'nuggets host --data ${join(dataDir, "nope")}' makes it, and records every game it hosts there\n`
    })
    const xdg = process.env.XDG_DATA_HOME
    process.env.XDG_DATA_HOME = join(dataDir, "xdg")
    const byDefault = await nuggetsInProcess("archive", "list").finally(() => {
      if (xdg === undefined) delete process.env.XDG_DATA_HOME
      else process.env.XDG_DATA_HOME = xdg
    })
    expect(byDefault.stderr).toBe(`nuggets: ${join(dataDir, "xdg", "nuggets")} — no such folder: 'nuggets host' makes it, and records every game it hosts there\n`)
  })
})
