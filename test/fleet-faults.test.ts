import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { Effect, Stream } from "effect"
import { rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { FleetTimings } from "../src/fleet/membership.js"
import { nuggetsCommand, Program, run } from "./cli/process.js"
import { call, postGame, startHost, type TestHost } from "./host/harness.js"
import { freshDatabase, type Postgres, startPostgres } from "./postgres.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"
import { gridLines, find, firstStepToward } from "./server/walk.js"

/**
 * A fleet's faults, each against a real PostgreSQL: a host killed, or paused past its lease,
 * in a process of its own; the database restarted, or away for a while, under games in play.
 */

const quick: FleetTimings = { renewEvery: "200 millis", leaseFor: "1 second", seatHeld: "3 seconds" }
const owned: Array<{ readonly close: () => Promise<unknown> }> = []
afterAll(async () => {
  for (const each of owned.reverse()) await each.close()
})

const host = async (url: URL, name: string) => {
  const started = await startHost({ fleet: { url, name, timings: quick } })
  owned.push({ close: () => started.stop() })
  return started
}
const client = async (port: number) => {
  const opened = await TestClient.open(port)
  owned.push({ close: () => opened.close() })
  return opened
}

/** A recording written where `nuggets replay` can read it, removed with the rest at the end. */
const recordingFile = (id: string, text: string | Uint8Array) => {
  const file = join(tmpdir(), `nuggets-fleet-${id}.ndjson`)
  writeFileSync(file, text)
  owned.push({ close: async () => rmSync(file, { force: true }) })
  return file
}

/** `nuggets host --database URL` in a process of its own, with a quick lease: its lobby's address. */
const hostProcess = async (url: URL) => {
  const program = Program.start([...(await nuggetsCommand()), "host", "--database", url.href, "--lease", "1s", "--web", "127.0.0.1:0", "--host", "127.0.0.1", "--open", "1"])
  owned.push({ close: () => (program.child.kill("SIGKILL"), program.exited) })
  const lobby = (await program.line(/^Lobby: http:\/\/\S+$/, 30_000)).slice("Lobby: ".length)
  return { program, lobby }
}

/** Waits, on the lobby's own word that what it shows changed, until `done` holds; a deadline. */
const untilLobby = (at: TestHost, done: () => boolean, what: string, ms = 20_000) =>
  Effect.runPromise(at.lobby.changes.changes.pipe(
    Stream.filter(() => done()),
    Stream.take(1),
    Stream.runDrain,
    Effect.timeoutFail({ duration: ms, onTimeout: () => new Error(`the lobby did not show ${what} in time`) })
  ))

/**
 * The game `--open` opened on the host whose lobby is at `lobby`, once another host of the
 * fleet (`at`) shows it: its own lobby may print its address before the fleet's board has it.
 */
const openedOn = async (at: TestHost, lobby: string) => {
  const ofIt = () => at.lobby.games().find((each) => each.page.startsWith(lobby))
  await untilLobby(at, () => ofIt() !== undefined, `the game of the host at ${lobby}`)
  return ofIt()!
}

/** A player in the game at `port`, who walks towards gold `keys` times, each move answered. */
const walker = async (port: number, name: string) => {
  const player = await client(port)
  player.send(`PLAY ${name}`)
  expect(await player.next()).toMatch(/^OK /)
  let view = gridLines(gridOf(await player.nextStarting("DISPLAY")))
  return {
    player,
    walk: async (keys: number) => {
      for (let i = 0; i < keys; i++) {
        const me = find(view, (ch) => ch === "@")[0]!
        player.send(`KEY ${firstStepToward(view, me, (ch) => ch === "*") ?? "h"}`)
        view = gridLines(gridOf(await player.nextStarting("DISPLAY")))
      }
    }
  }
}

describe("a fleet's faults", () => {
  let shared: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    shared = await freshDatabase(inject("postgresUrl"))
    owned.push({ close: () => shared.drop() })
  })

  it("a host SIGKILLed mid-game: a survivor ends its game for the fleet, interrupted, and it replays to where it stopped", async () => {
    const survivor = await host(shared.url, "survivor")
    const dead = await hostProcess(shared.url)
    const game = await openedOn(survivor, dead.lobby)
    const { walk } = await walker(game.port, "Ann")
    await walk(5)
    await untilLobby(survivor, () => survivor.lobby.game(game.id)?.players.length === 1, "the player in the game")
    dead.program.child.kill("SIGKILL")
    await untilLobby(survivor, () => survivor.lobby.game(game.id) === undefined, "the game gone")
    const past = await call(survivor.url, `/api/games/${game.id}`)
    expect(past.body).toMatchObject({ id: game.id, live: false, outcome: "interrupted" })
    const file = recordingFile(game.id, await (await fetch(new URL(`/api/archive/${game.id}/recording`, survivor.url))).text())
    const checked = await run([...(await nuggetsCommand()), "replay", file, "--check"])
    expect(checked.stdout).toMatch(/: OK — \d+ moves/)
  })

  it("a host paused past its lease, then resumed: the fleet ended its game meanwhile; it tells its players so, writes nothing over the fleet's word, and joins again", async () => {
    const survivor = await host(shared.url, "watcher")
    const paused = await hostProcess(shared.url)
    const game = await openedOn(survivor, paused.lobby)
    const { player, walk } = await walker(game.port, "Bo")
    await walk(3)
    await untilLobby(survivor, () => survivor.lobby.game(game.id)?.players.length === 1, "the player in the game")
    paused.program.child.kill("SIGSTOP")
    await untilLobby(survivor, () => survivor.lobby.game(game.id) === undefined, "the game gone")
    expect((await call(survivor.url, `/api/games/${game.id}`)).body).toMatchObject({ outcome: "interrupted" })
    paused.program.child.kill("SIGCONT")
    // Back, it finds it lost: its game ends here too, and its player is told to quit.
    expect(await player.nextStarting("QUIT", 15_000)).toMatch(/^QUIT/)
    // What it wrote at its game's end does not undo what the fleet decided.
    expect((await call(survivor.url, `/api/games/${game.id}`)).body).toMatchObject({ outcome: "interrupted" })
    // It joined again, at a new epoch, and opened a game again.
    await untilLobby(survivor, () => survivor.lobby.games().some((each) => each.page.startsWith(paused.lobby) && each.id !== game.id), "a new game of the host that came back")
  })
})

describe("the fleet's database restarted, or away, under games in play", () => {
  let postgres: Postgres
  let url: URL
  beforeAll(async () => {
    // A server of this test's own: it is restarted and stopped.
    postgres = await startPostgres()
    owned.push({ close: async () => postgres.stop() })
    url = (await freshDatabase(postgres.url)).url
  })

  it("restarted: the games go on, nothing finished is lost, and every lobby listens again", async () => {
    const [ann, bob] = await Promise.all([host(url, "restart-ann"), host(url, "restart-bob")])
    const started = await postGame(ann.url, { map: "small", seed: 3 })
    const { walk } = await walker(started.body.port, "Cy")
    await walk(3)
    postgres.control("restart", "-m", "fast")
    await walk(5)
    // A game started after the restart shows on the other host: its board listens again.
    const later = await postGame(ann.url, { map: "hole" })
    expect(later.status).toBe(201)
    await untilLobby(bob, () => bob.lobby.game(later.body.id) !== undefined, "the game started after the restart")
  })

  it("away for a while: the games go on, their recordings wait and are written when it comes back, whole", async () => {
    const solo = await host(url, "away")
    const started = await postGame(solo.url, { map: "small", seed: 4 })
    const { id, port } = started.body as { id: string; port: number }
    const { player, walk } = await walker(port, "Di")
    await walk(2)
    postgres.control("stop", "-m", "fast")
    // Every key is still answered while the database is away.
    await walk(10)
    // Not ready for new games and players while it cannot renew its lease; alive all the while.
    await untilLobby(solo, () => solo.member?.holding() === false, "the host losing its lease")
    expect(await call(solo.url, "/readyz")).toMatchObject({
      status: 503,
      body: "not ready: this host cannot renew its lease in the fleet: it takes no new game and no new player\n"
    })
    expect((await call(solo.url, "/livez")).status).toBe(200)
    expect((await call(solo.url, "/api/games")).body.closing).toBe("this host cannot renew its lease in the fleet: it takes no new game and no new player")
    postgres.control("start")
    await untilLobby(solo, () => solo.member?.holding() === true, "the host holding its lease again")
    expect((await call(solo.url, "/readyz")).status).toBe(200)
    // Played to its end, the game goes to the archive with every move it took.
    const spectator = await client(port)
    spectator.send("SPECTATE")
    expect(await collectAllGold(player, spectator, gridOf(await spectator.nextStarting("DISPLAY")), "A")).toMatch(/^GAMEOVER/)
    await untilLobby(solo, () => solo.lobby.game(id) === undefined, "the game gone to the archive")
    const file = recordingFile(id, Buffer.from(await Effect.runPromise(solo.archive.recording(id))))
    const checked = await run([...(await nuggetsCommand()), "replay", file, "--check"])
    expect(checked.stdout).toMatch(/: OK — \d+ moves, \d+ checkpoints and the summary match/)
    expect(checked.stdout).not.toMatch(/stops before the end/)
  })

  it("stopped while it is away: a host ends its games, gives up within its lease what it could not write, says so, and exits 0", async () => {
    const { program } = await hostProcess(url)
    await program.errorLine(/started: /)
    postgres.control("stop", "-m", "fast")
    try {
      program.child.kill("SIGTERM")
      // A guard against a hang (a finalizer's wait the grace could not end), not a measure: the lease is 1 s.
      expect(await program.exitCode(20_000)).toBe(0)
      expect(program.stderr).toMatch(/batch(es)? (was|were) never written: the database did not come back in time/)
    } finally {
      postgres.control("start")
    }
  })
})
