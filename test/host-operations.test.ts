/**
 * What an operator's tools ask of `nuggets host`, over real sockets: `/livez` and `/readyz`,
 * `/metrics` (checked by Prometheus' own `promtool`), logs as JSON, the drain on SIGTERM,
 * and the operator's token for `DELETE /api/games/ID`.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { request } from "node:http"
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { systemProgram } from "../scripts/programs.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { nuggetsCommand, Program } from "./cli/process.js"
import { archivedAtLeast, call, postGame, startHost, untilShown } from "./host/harness.js"
import { owned } from "./owned.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"

const folders: Array<string> = []
const folder = () => {
  const made = mkdtempSync(join(tmpdir(), "nuggets-operations-"))
  folders.push(made)
  return made
}
afterAll(() => {
  for (const each of folders) rmSync(each, { recursive: true, force: true })
})

const client = async (port: number) => owned(await TestClient.open(port), (each) => each.close())

/** A player and the spectator in the game at `port`, with the first DISPLAY the spectator saw. */
const playerAndSpectator = async (port: number) => {
  const player = await client(port)
  player.send("PLAY Alice")
  await player.nextStarting("DISPLAY")
  const spectator = await client(port)
  spectator.send("SPECTATE")
  return { player, spectator, display: gridOf(await spectator.nextStarting("DISPLAY")) }
}

/** `promtool check metrics` on a scrape: what it says, and whether it accepts it. */
const promtool = (scrape: string) => {
  try {
    return { accepted: true, said: execFileSync(systemProgram("promtool"), ["check", "metrics"], { input: scrape, encoding: "utf8", stdio: "pipe" }) }
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string }
    return { accepted: false, said: `${failed.stdout ?? ""}${failed.stderr ?? ""}` }
  }
}

/** A series' value in a scrape (its labels written as Prometheus writes them), or undefined. */
const valueOf = (scrape: string, series: string) => {
  const line = scrape.split("\n").find((each) => each.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

const scrape = async (url: string) => {
  const answer = await fetch(new URL("/metrics", url))
  expect(answer.status).toBe(200)
  expect(answer.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  return answer.text()
}

describe("a host for its operators", () => {
  it("answers /livez and /readyz; its /metrics passes promtool, and the series move as a game is played, none per game", async () => {
    const host = await startHost({ open: 1 })
    owned(host, (each) => each.stop())
    expect(await call(host.url, "/livez")).toMatchObject({ status: 200, body: "alive\n" })
    expect(await call(host.url, "/readyz")).toMatchObject({ status: 200, body: "ready\n" })

    const before = await scrape(host.url)
    expect(promtool(before)).toEqual({ accepted: true, said: "" })
    expect(valueOf(before, `nuggets_games{state="playing"}`)).toBe(1)
    expect(valueOf(before, "nuggets_players")).toBe(0)
    expect(valueOf(before, `nuggets_games_ended_total{end="over"}`)).toBe(0)
    expect(valueOf(before, "nuggets_keys_total")).toBe(0)
    expect(valueOf(before, "process_resident_memory_bytes")).toBeGreaterThan(0)

    const [game] = (await call(host.url, "/api/games")).body.games as Array<{ id: string; port: number }>
    const { display, player, spectator } = await playerAndSpectator(game!.port)
    const playing = await scrape(host.url)
    expect(valueOf(playing, "nuggets_players")).toBe(1)
    expect(valueOf(playing, "nuggets_spectators")).toBe(1)
    player.send("KEY z")
    expect(await player.nextStarting("NO")).toBe("NO unknown keystroke")
    await collectAllGold(player, spectator, display)
    // Gone, and the game kept open is another.
    await untilShown(host.games, () => host.games.running().length === 1 && host.games.running()[0]!.id !== game!.id)

    const after = await scrape(host.url)
    expect(promtool(after)).toEqual({ accepted: true, said: "" })
    expect(valueOf(after, `nuggets_games_ended_total{end="over"}`)).toBe(1)
    expect(valueOf(after, `nuggets_games{state="playing"}`)).toBe(1)
    expect(valueOf(after, "nuggets_players")).toBe(0)
    expect(valueOf(after, "nuggets_game_duration_seconds_count")).toBe(1)
    expect(valueOf(after, "nuggets_keys_total")).toBeGreaterThan(10)
    expect(valueOf(after, "nuggets_datagrams_received_total")).toBeGreaterThan(valueOf(after, "nuggets_keys_total")!)
    expect(valueOf(after, "nuggets_datagrams_sent_total")).toBeGreaterThan(valueOf(after, "nuggets_keys_total")!)
    expect(valueOf(after, `nuggets_datagrams_refused_total{reason="refused"}`)).toBe(1)
    expect(valueOf(after, `nuggets_http_requests_total{route="/api/games",status="200"}`)).toBe(1)
    expect(valueOf(after, `nuggets_http_requests_total{route="/metrics",status="200"}`)).toBe(2)
    // However many games run, the series stay the same: no game's id in any of them.
    expect(after).not.toContain(game!.id)
  }, 30_000)

  it("--admin-token-file: DELETE /api/games/ID is 401 without the token, 403 with another, and with it ends the game, which the archive says", async () => {
    const dir = folder()
    const tokenFile = join(dir, "token")
    writeFileSync(tokenFile, "s3cret-token\n", { mode: 0o600 })
    const host = owned(
      Program.start([...(await nuggetsCommand()), "host", "--web", "127.0.0.1:0", "--host", "127.0.0.1", "--data", join(dir, "data"), "--admin-token-file", tokenFile]),
      (program) => program.child.kill("SIGKILL")
    )
    const url = (await host.line(/^Lobby: http:\/\/\S+$/)).slice("Lobby: ".length)
    const started = await postGame(url)
    expect(started.status).toBe(201)
    const { id, port } = started.body as { id: string; port: number }
    const { player } = await playerAndSpectator(port)
    const end = (authorization?: string) =>
      call(url, `/api/games/${id}`, { method: "DELETE", headers: authorization === undefined ? {} : { authorization } })
    expect(await end()).toMatchObject({ status: 401 })
    expect(await end("Bearer not-the-token")).toMatchObject({ status: 403 })
    expect(await call(url, "/api/games/no-such-game", { method: "DELETE", headers: { authorization: "Bearer s3cret-token" } })).toMatchObject({ status: 404 })
    expect((await end("Bearer s3cret-token")).status).toBe(200)
    expect(await player.nextStarting("QUIT")).toMatch(/^QUIT /)
    await archivedAtLeast(url, 1)
    const [past] = (await call(url, "/api/archive")).body.games as Array<{ id: string; outcome: string; note?: string }>
    expect(past).toMatchObject({ id, outcome: "stopped", note: "ended by the host" })
    host.child.kill("SIGTERM")
    expect(await host.exitCode()).toBe(0)
    expect(host.stderr).not.toContain("s3cret-token")
    expect(host.stderr).not.toContain("not-the-token")
  }, 30_000)

  it("--admin-token-file that others may read: refused before anything starts, one line, exit 1", async () => {
    const tokenFile = join(folder(), "token")
    writeFileSync(tokenFile, "s3cret-token\n")
    chmodSync(tokenFile, 0o644)
    expect(await nuggetsInProcess("host", "--admin-token-file", tokenFile)).toMatchObject({
      code: 1,
      stdout: "",
      stderr: `nuggets: --admin-token-file — ${tokenFile} may be read by others (mode 644): chmod 600 ${tokenFile}\n`
    })
  })
})

/** `POST /api/games` sent from `localAddress` (any of loopback's 127.x.y.z): the status. */
const postFrom = (url: string, localAddress: string) =>
  new Promise<number>((resolve, reject) => {
    const sent = request(new URL("/api/games", url), { method: "POST", localAddress, headers: { "content-type": "application/json" } }, (answer) => {
      answer.resume()
      answer.on("end", () => resolve(answer.statusCode!))
    })
    sent.on("error", reject)
    sent.end("{}")
  })

describe("the pace of new games", () => {
  it("is each client address's: one address's flood leaves another its own; all of them together stay within the host's cap", async () => {
    // Two games at once for each address, and twenty for all of them together; hardly any more later.
    const host = await startHost({ maxGames: 40, startRate: { perSecond: 0.001, burst: 2 } })
    owned(host, (each) => each.stop())
    const flood = await Promise.all(Array.from({ length: 6 }, () => postFrom(host.url, "127.0.0.1")))
    expect(flood.sort()).toEqual([201, 201, 429, 429, 429, 429])
    expect(await postFrom(host.url, "127.0.0.2")).toBe(201)
    // Nine more addresses, two games each: the twentieth game is the last of all.
    const others = await Promise.all(Array.from({ length: 9 }, (_, i) => [postFrom(host.url, `127.0.0.${3 + i}`), postFrom(host.url, `127.0.0.${3 + i}`)]).flat())
    expect(others.filter((status) => status === 201)).toHaveLength(17)
    expect(others.filter((status) => status === 429)).toHaveLength(1)
    expect(await postFrom(host.url, "127.0.0.99")).toBe(429)
    expect(host.games.running()).toHaveLength(20)
  }, 30_000)
})

describe("host --drain, on SIGTERM", () => {
  /** `nuggets host --drain 60s --log-format json` with one game open and a player in it. */
  const draining = async () => {
    const host = owned(
      Program.start([
        ...(await nuggetsCommand()),
        ...["host", "--web", "127.0.0.1:0", "--host", "127.0.0.1", "--data", join(folder(), "data"), "--open", "1", "--drain", "60s", "--log-format", "json"]
      ]),
      (program) => program.child.kill("SIGKILL")
    )
    const url = (await host.line(/^Lobby: http:\/\/\S+$/)).slice("Lobby: ".length)
    const [game] = (await call(url, "/api/games")).body.games as Array<{ id: string; port: number }>
    return { host, url, game: game!, ...(await playerAndSpectator(game!.port)) }
  }

  it("turns /readyz 503 at once, takes no new game or player, lets the game in play end, then exits 0; every log line is JSON", async () => {
    const { display, game, host, player, spectator, url } = await draining()
    host.child.kill("SIGTERM")
    await host.errorLine(/"message":"draining: 1 game in play/)
    expect(await call(url, "/readyz")).toMatchObject({ status: 503, body: "not ready: the host is closing: it takes no new game and no new player\n" })
    expect(await call(url, "/livez")).toMatchObject({ status: 200 })
    expect((await call(url, "/api/games")).body.closing).toBe("the host is closing: it takes no new game and no new player")
    expect((await postGame(url)).status).toBe(503)
    const late = await client(game.port)
    late.send("PLAY Bob")
    expect(await late.next()).toBe("NO Sorry - the server takes no new player now; try again in a moment.")

    expect(await collectAllGold(player, spectator, display)).toMatch(/^GAMEOVER\n/)
    expect(await host.exitCode(30_000)).toBe(0)
    await host.errorLine(/"message":"drained: every game in play has ended/)
    const lines = host.stderr.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
    for (const line of lines) {
      expect(Object.keys(line)).toEqual(expect.arrayContaining(["time", "level", "message"]))
      expect(new Date(line.time as string).toISOString()).toBe(line.time)
    }
    // What a game's fibers log names the game as a field, not in the words.
    const aboutTheGame = lines.filter((line) => line.game === game.id).map((line) => line.message)
    expect(aboutTheGame).toContainEqual(expect.stringMatching(/^started: main, seed \d+/))
    expect(aboutTheGame).toContainEqual(expect.stringMatching(/: joined as A \("Alice"\)$/))
  }, 60_000)

  it("a second SIGTERM ends the drain at once: everyone told to quit, exit 0", async () => {
    const { host, player, spectator } = await draining()
    host.child.kill("SIGTERM")
    await host.errorLine(/"message":"draining: /)
    host.child.kill("SIGTERM")
    expect(await player.nextStarting("QUIT")).toBe("QUIT server shutting down")
    expect(await spectator.nextStarting("QUIT")).toBe("QUIT server shutting down")
    expect(await host.exitCode()).toBe(0)
    await host.errorLine(/"message":"drained: told to stop now; 1 game in play is ended"/)
  }, 60_000)
})
