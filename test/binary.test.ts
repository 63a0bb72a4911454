import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildExecutable } from "../scripts/build.js"
import { dropRecording, handmadeRecording } from "./archive/recordings.js"
import { nuggetsCommand, Program, projectDir, run } from "./cli/process.js"
import { TestClient } from "./server/harness.js"

/**
 * The real single executable, built into a folder of its own with no node_modules and no
 * sources: never over the user's dist/nuggets, which may be running.
 */
let nuggets = ""
let workDir = ""
const userBinary = join(projectDir, "dist/nuggets")
const userBinaryBefore = existsSync(userBinary) ? statSync(userBinary).mtimeMs : undefined

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), "nuggets-binary-"))
  const bundled = (await nuggetsCommand()).at(-1)!
  nuggets = await buildExecutable(join(workDir, "nuggets"), join(workDir, "build"), { bundled })
  writeFileSync(join(workDir, "small.txt"), readFileSync(join(projectDir, "maps/small.txt")))
  writeFileSync(join(workDir, "open.txt"), readFileSync(join(projectDir, "maps/main.txt"), "utf8").replace("|", " "))
}, 180_000)

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true })
})


describe("the single executable, run where there is no node_modules", () => {
  it("is built outside the project: the user's own dist/nuggets, maybe running, is left alone", () => {
    expect(nuggets.startsWith(projectDir)).toBe(false)
    expect(existsSync(userBinary) ? statSync(userBinary).mtimeMs : undefined).toBe(userBinaryBefore)
  })

  it("--help is plain text naming the program, --version prints the version", async () => {
    const help = await run([nuggets, "--help"], { cwd: workDir })
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Usage: nuggets <command>")
    expect(help.stdout).toContain("serve")
    expect(help.stdout).not.toContain("\x1b")
    const serveHelp = await run([nuggets, "serve", "--help"], { cwd: workDir })
    expect(serveHelp.stdout).toContain("Usage: nuggets serve [options] [MAP [SEED]]")
    const version = await run([nuggets, "--version"], { cwd: workDir })
    const { version: expected } = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as { version: string }
    expect(version.stdout.trim()).toBe(`nuggets ${expected}`)
  })

  it("map check: exit 0 for a good map, 1 with the line and column of each problem", async () => {
    const good = await run([nuggets, "map", "check", "small.txt"], { cwd: workDir })
    expect(good).toMatchObject({ code: 0, stdout: "small.txt: OK, 10x29 with 63 room spots" })
    const bad = await run([nuggets, "map", "check", "open.txt"], { cwd: workDir })
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe("open.txt: line 2, column 3: a gap in a room's wall, solid rock beside a room spot '.' (room not closed)")
    expect(bad.stderr).toBe("nuggets: open.txt — 1 broken rule; nuggets serve still plays it\n")
  })

  it("serves the embedded default map with no map file", async () => {
    const server = Program.start([nuggets, "serve", "--host", "127.0.0.1"], { cwd: workDir })
    try {
      const port = Number((await server.line(/^Ready to play, waiting at port \d+$/)).split(" ").at(-1))
      const client = await TestClient.open(port)
      client.send("SPECTATE")
      expect(await client.next()).toBe("GRID 21 79")
      await client.close()
    } finally {
      server.child.kill("SIGTERM")
      expect(await server.exitCode()).toBe(0)
    }
  })

  it("hosts games on its built-in maps and serves the lobby, the game pages and the API from inside the executable", async () => {
    const alone = mkdtempSync(join(tmpdir(), "nuggets-host-alone-"))
    const host = Program.start([nuggets, "host", "--open", "3", "--web", "127.0.0.1:0", "--host", "127.0.0.1", "--data", "data"], { cwd: alone })
    try {
      const lobby = (await host.line(/^Lobby: http:\/\/\S+$/)).slice("Lobby: ".length)
      const games = (await (await fetch(new URL("/api/games", lobby))).json()) as { games: Array<{ map: string; page: string }> }
      expect(games.games.map((game) => game.map).sort()).toEqual(["hole", "main", "small"])
      expect(await (await fetch(lobby)).text()).toContain('id="new-game"')
      expect(await (await fetch(new URL(games.games[0]!.page, lobby))).text()).toContain('id="grid"')
    } finally {
      host.child.kill("SIGTERM")
      expect(await host.exitCode()).toBe(0)
      rmSync(alone, { recursive: true, force: true })
    }
  })

  it("keeps an archive with SQLite alone in an empty folder: the addon comes out of the executable and leaves no file behind", async () => {
    const alone = mkdtempSync(join(tmpdir(), "nuggets-alone-"))
    try {
      copyFileSync(nuggets, join(alone, "nuggets"))
      chmodSync(join(alone, "nuggets"), 0o755)
      const data = join(alone, "data")
      const players = [{ letter: "A", name: "Alice", purse: 150 }, { letter: "B", name: "Bob", purse: 100 }]
      dropRecording(data, "first", handmadeRecording({ map: "small.txt", started: "2026-01-01T09:00:00Z", players, end: "over" }))
      // The addon's temporary file goes where TMPDIR says: this folder, empty again afterwards.
      const temporary = join(alone, "tmp")
      mkdirSync(temporary)
      const env = { ...process.env, TMPDIR: temporary }
      const listed = await run(["./nuggets", "archive", "list", "--data", "data"], { cwd: alone, env })
      expect(listed.stderr).toBe(`${data}: 1 recording indexed\n`)
      expect(listed.stdout).toContain("first  2026-01-01 09:00")
      expect(listed.stdout).toContain("over     0  Alice   Alice 150, Bob 100")
      expect(listed.code).toBe(0)
      // Read back from the database the first run wrote: nothing to index this time.
      const again = await run(["./nuggets", "archive", "list", "--data", "data", "--player", "bob"], { cwd: alone, env })
      expect(again).toMatchObject({ code: 0, stderr: "" })
      expect(again.stdout).toContain("Alice 150, Bob 100")
      expect(readdirSync(temporary)).toEqual([])
      // Only a command that opens an archive loads the addon: the others start as before.
      expect(await run(["./nuggets", "--version"], { cwd: alone, env: { ...env, TMPDIR: join(alone, "missing") } })).toMatchObject({ code: 0 })
      // And it is that file that is loaded, not the project's node_modules: with no temporary folder to write it in, no archive.
      const nowhere = await run(["./nuggets", "archive", "list", "--data", "data"], { cwd: alone, env: { ...env, TMPDIR: join(alone, "missing") } })
      expect(nowhere.code).toBe(1)
      expect(nowhere.stderr).toMatch(/^nuggets: .*archive\.db — cannot open the archive: ENOENT: .*mkdtemp '.*missing\/nuggets-sqlite-XXXXXX'\n$/)
      expect(readdirSync(alone).sort()).toEqual(["data", "nuggets", "tmp"])
    } finally {
      rmSync(alone, { recursive: true, force: true })
    }
  })
})
