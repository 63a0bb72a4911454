/**
 * `nuggets host` as its own process: what it prints, stopping (SIGTERM: every game told to
 * quit, recordings flushed, exit 0), SIGKILL in the middle of 20 games and a restart on the
 * same data directory, and `nuggets join http://HOST:PORT NAME` in a terminal.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { recordingFacts } from "../src/archive/facts.js"
import { dataDirectory } from "../src/archive/dataDir.js"
import { openDatabase } from "./archive/open.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { nuggetsCommand, Program } from "./cli/process.js"
import { tmuxPane } from "./client/tmux.js"
import { archivedAtLeast, call, startHost } from "./host/harness.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { mapsDir } from "./support.js"

const folders: Array<string> = []
const folder = (name: string) => {
  const made = mkdtempSync(join(tmpdir(), `nuggets-${name}-`))
  folders.push(made)
  return made
}
const clients: Array<TestClient> = []
afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()))
  for (const each of folders) rmSync(each, { recursive: true, force: true })
})

interface HostProcess {
  readonly program: Program
  readonly url: string
}

/** `nuggets host ARGS` on loopback, once its lobby is up. */
const hostProcess = async (args: ReadonlyArray<string>, env?: NodeJS.ProcessEnv): Promise<HostProcess> => {
  const program = Program.start([...(await nuggetsCommand()), "host", "--web", "127.0.0.1:0", "--host", "127.0.0.1", ...args], env ? { env } : {})
  try {
    const exited = program.exited.then((code) => {
      throw new Error(`exited ${code}: ${program.stderr}`)
    })
    const url = (await Promise.race([program.line(/^Lobby: http:\/\/\S+$/), exited])).slice("Lobby: ".length)
    return { program, url }
  } catch (error) {
    program.child.kill("SIGKILL")
    throw error
  }
}

const player = async (port: number, name: string) => {
  const client = await TestClient.open(port)
  clients.push(client)
  client.send(`PLAY ${name}`)
  return { client, display: await client.nextStarting("DISPLAY") }
}

/** Every past game in the archive, page after page, from the API. */
const everyGame = async (url: string) => {
  const games: Array<any> = []
  let before = ""
  do {
    const page = await call(url, `/api/archive?limit=100${before === "" ? "" : `&before=${before}`}`)
    games.push(...page.body.games)
    before = page.body.next ?? ""
  } while (before !== "")
  return games
}

/** Resolves once each game's recording in `dir` holds a move, looking again at each change to the folder; fails after 10 s. */
const movesOnDisk = (dir: string, ids: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) => {
    const hasMoves = (id: string) => {
      let text: string
      try {
        text = readFileSync(join(dir, `${id}.ndjson`), "utf8")
      } catch {
        return false
      }
      const facts = Effect.runSync(Effect.either(recordingFacts(id, text.slice(0, text.lastIndexOf("\n") + 1))))
      return Either.isRight(facts) && facts.right.moves >= 1
    }
    const watcher = watch(dir)
    const done = (error?: Error) => {
      clearTimeout(deadline)
      watcher.close()
      if (error) reject(error)
      else resolve()
    }
    const look = () => {
      if (ids.every(hasMoves)) done()
    }
    const deadline = setTimeout(() => done(new Error(`no move on disk yet for ${ids.filter((id) => !hasMoves(id)).join(", ")}`)), 10_000)
    watcher.on("change", look)
    look()
  })

describe("nuggets host on the command line", () => {
  const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
    [["host", "--ports", "4000-4009"], "--max-games — 100 games need as many ports; --ports 4000-4009 has 10"],
    [["host", "--ports", "5-4"], `--ports — "5-4" ends before it starts; write FIRST-LAST, e.g. 4000-4099`],
    [["host", "--ports", "4000"], `--ports — "4000" is not a range of ports; write FIRST-LAST, e.g. 4000-4099`],
    [["host", "--ports", "0-10", "--max-games", "5"], `--ports — "0-10" goes beyond the ports 1 to 65535; write FIRST-LAST, e.g. 4000-4099`],
    [["host", "--open", "5", "--max-games", "3"], "--open — 5 games cannot stay open with --max-games 3"],
    [["host", "--max-games", "0"], "--max-games — must be 1..10000, not 0"],
    [["host", "--maps", "no-such-folder"], "no-such-folder — cannot read the folder of maps: no such file or folder"],
    [["host", "--maps", "test"], "test — holds no map (*.txt)"],
    [["host", "--web", "99999"], `--web — "99999" is not a port (0 to 65535); write [HOST:]PORT, e.g. 8080, 0.0.0.0:8080 or [::1]:8080`],
    [["host", "--web-name", "bad name"], `--web-name — "bad name" is not a host name; write a name such as nuggets.example.org`],
    [["host", "--compat", "cs50"], "--compat — must be cs50-2021, not 'cs50'"],
    [["host", "--log", "/nonexistent/x.log"], "/nonexistent/x.log — cannot write it: no such file or folder"],
    [["host", "extra"], "unexpected argument 'extra' — try 'nuggets help host'"],
    [["host", "--host", "nosuch.invalid"], "nosuch.invalid — unknown host"],
    [["join", "http://127.0.0.1:8080"], "NAME — missing: a lobby finds a place for a player (nuggets join http://127.0.0.1:8080 NAME)"],
    [["join", "http://127.0.0.1:8080", "Eve", "extra"], "unexpected argument 'extra' — try 'nuggets help join'"],
    [["join", "http://", "Eve"], "HOST — 'http://' is not a lobby's address: write http://HOST:PORT"]
  ]
  for (const [args, why] of cases) {
    it(`nuggets ${args.join(" ")}: one line, exit 1`, async () => {
      expect(await nuggetsInProcess(...args)).toMatchObject({ code: 1, stdout: "", stderr: `nuggets: ${why}\n` })
    })
  }
})

describe("nuggets host as a process", () => {
  it("SIGKILL in the middle of 20 games, then a restart on the same data: every finished game listed and replays, the 20 interrupted but replayable, the index agreeing with the files", async () => {
    const data = folder("host-kill")
    const maps = folder("host-maps")
    copyFileSync(join(mapsDir, "small.txt"), join(maps, "small.txt"))
    const first = await hostProcess(["--data", data, "--maps", maps, "--open", "20"])
    try {
      const opened = (await call(first.url, "/api/games")).body.games as Array<any>
      expect(opened).toHaveLength(20)
      // Three games played to their end, at once.
      const finished = opened.slice(0, 3)
      await Promise.all(finished.map(async (game, i) => {
        const { client } = await player(game.port, `Finisher ${i}`)
        const spectator = await TestClient.open(game.port)
        clients.push(spectator)
        spectator.send("SPECTATE")
        const view = await spectator.nextStarting("DISPLAY")
        expect(await collectAllGold(client, spectator, gridOf(view))).toMatch(/^GAMEOVER/)
      }))
      await archivedAtLeast(first.url, 3)
      // Twenty games in play: the host has opened three more, so that twenty stay open.
      const playing = (await call(first.url, "/api/games")).body.games as Array<any>
      expect(playing).toHaveLength(20)
      await Promise.all(playing.map(async (game, i) => {
        const { client } = await player(game.port, `Player ${i}`)
        for (const key of "hjklhjkl") {
          client.send(`KEY ${key}`)
          await client.nextStarting("DISPLAY")
        }
      }))
      // A crash loses at most the recorder's last batch (100 ms): the kill comes once every
      // game's moves are on disk, so that each is replayable to a move of its own.
      await movesOnDisk(join(data, "games"), playing.map((game) => game.id))
      first.program.child.kill("SIGKILL")
      expect(await first.program.exited).toBe(null)

      const second = await hostProcess(["--data", data, "--maps", maps, "--open", "0"])
      try {
        const games = await everyGame(second.url)
        const byId = new Map(games.map((game) => [game.id, game]))
        for (const game of finished) expect(byId.get(game.id)?.outcome, game.id).toBe("over")
        for (const game of playing) expect(byId.get(game.id)?.outcome, game.id).toBe("interrupted")
        expect(games).toHaveLength(23)
        // The index agrees with the files: each recording a row made from it, each row its file.
        const files = readdirSync(join(data, "games")).map((file) => file.replace(/\.ndjson$/, "")).sort()
        expect(files).toEqual(games.map((game) => game.id).sort())
        for (const id of files) {
          const facts = await Effect.runPromise(Effect.either(recordingFacts(id, readFileSync(join(data, "games", `${id}.ndjson`), "utf8"))))
          expect(Either.isRight(facts), id).toBe(true)
          if (Either.isLeft(facts)) continue
          expect(byId.get(id)).toMatchObject({
            started: new Date(facts.right.startedMs).toISOString(),
            durationMs: facts.right.durationMs,
            moves: facts.right.moves,
            outcome: facts.right.end ?? "interrupted",
            standings: facts.right.standings
          })
          // And it replays, checked: the finished ones to their end, the ones cut short to where they stopped.
          const checked = await nuggetsInProcess("replay", join(data, "games", `${id}.ndjson`), "--check")
          expect(checked.stdout, checked.stderr).toMatch(/: OK — \d+ moves, \d+ checkpoints (match \(the recording stops before the end\)|and the summary match)\n$/)
        }
        expect(games.filter((game) => game.outcome === "interrupted").every((game) => game.moves >= 1)).toBe(true)
      } finally {
        second.program.child.kill("SIGTERM")
        expect(await second.program.exitCode(5000)).toBe(0)
      }
      const integrity = await Effect.runPromise(Effect.scoped(Effect.flatMap(openDatabase(data), (sql) => sql`PRAGMA integrity_check`)))
      expect(integrity).toEqual([{ integrity_check: "ok" }])
    } finally {
      first.program.child.kill("SIGKILL")
    }
  }, 60_000)

  it("says where its data is, refuses a data directory in use, and on SIGTERM tells every game's clients QUIT, closes the recordings and exits 0", async () => {
    const xdg = folder("host-xdg")
    const host = await hostProcess(["--open", "2", "--log-level", "error"], { ...process.env, XDG_DATA_HOME: xdg })
    const dataDir = dataDirectory({ flag: undefined, env: { XDG_DATA_HOME: xdg }, home: "", cwd: "" })
    expect(host.program.stdout[0]).toBe(
      `Data directory: ${dataDir} (the recordings in ${join(dataDir, "games")}, their index in ${join(dataDir, "archive.db")})`
    )
    const busy = await hostProcess(["--data", dataDir]).then(
      (second) => {
        second.program.child.kill("SIGKILL")
        return "started"
      },
      (error: Error) => error.message
    )
    expect(busy).toBe(`exited 1: nuggets: ${dataDir} — in use by another nuggets process (PID ${host.program.child.pid})\n`)
    const games = (await call(host.url, "/api/games")).body.games as Array<any>
    expect(games).toHaveLength(2)
    const players = await Promise.all(games.map((game, i) => player(game.port, `Stopped ${i}`)))
    const spectator = await TestClient.open(games[0].port)
    clients.push(spectator)
    spectator.send("SPECTATE")
    await spectator.nextStarting("DISPLAY")
    host.program.child.kill("SIGTERM")
    for (const { client } of players) expect(await client.nextStarting("QUIT")).toBe("QUIT server shutting down")
    expect(await spectator.nextStarting("QUIT")).toBe("QUIT server shutting down")
    // Within the 3 s a service manager allows before it kills.
    expect(await host.program.exitCode(3000)).toBe(0)
    expect(host.program.stderr).toBe("")
    const lines = (id: string) => readFileSync(join(dataDir, "games", `${id}.ndjson`), "utf8").trim().split("\n").map((line) => JSON.parse(line))
    for (const [i, game] of games.entries()) {
      expect(lines(game.id).at(-1)).toMatchObject({ end: "stopped", summary: expect.stringContaining(`Stopped ${i}`) })
    }
  }, 30_000)

  it.scopedLive("nuggets join http://HOST:PORT NAME joins a game the lobby finds, and says which", () =>
    Effect.gen(function*() {
      const host = yield* Effect.acquireRelease(Effect.promise(() => startHost({ open: 1 })), (host) => Effect.promise(() => host.stop()))
      const [game] = host.games.running()
      const pane = yield* tmuxPane([...(yield* Effect.promise(nuggetsCommand)), "join", host.url, "Eve"], { columns: 100, rows: 24 })
      // The nuggets left come with GOLD, a moment after the letter and the view.
      const joined = new RegExp(`^Player A has 0 nuggets \\(250 nuggets unclaimed\\)\\. +game ${game!.id} on main, joined$`)
      const screen = yield* pane.waitFor((lines) => joined.test(lines[0] ?? ""))
      expect(screen[0]).toMatch(/^Player A has 0 nuggets \(250 nuggets unclaimed\)\. +game \d{8}-\d{6}-[a-z0-9]{4} on main, joined$/)
      expect(game!.live.state().players.map((each) => each.name)).toEqual(["Eve"])
      yield* pane.sendKeys("Q")
      yield* pane.waitFor((lines) => lines.includes("tty=restored"))
    }), 30_000)
})
