/**
 * `nuggets host` in this process, over real sockets: games side by side that do not see
 * each other, a defect that ends one game alone, the lobby's pages and the JSON API (what
 * it answers, and every bad input refused with its 4xx and nothing else happening), a
 * flood of new games held to the cap and the pace. One host serves most tests, hence one
 * file (about 385 lines).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { findGame } from "../src/cli/matchmaking.js"
import { rules2019, type Rules } from "../src/core/rules.js"
import type { GameState } from "../src/core/state.js"
import { admit, type Limits, openBooks } from "../src/host/books.js"
import { rulesFor } from "../src/protocol/dialect.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { call, errorOf, postGame, startHost, type TestHost, untilShown } from "./host/harness.js"
import { collectAllGold, gridOf, observeGame, TestClient } from "./server/harness.js"
import { renderView } from "./support.js"
import { statusFor } from "./web/hostile.js"

let host: TestHost
/** Set, the rule of the game seeded 666 throws: a defect in that game's core. */
let explode = false
const exploding: Rules = {
  ...rules2019,
  get variant(): Rules["variant"] {
    if (explode) throw new Error("the test's rule threw")
    return "classic"
  }
}

const clients: Array<TestClient> = []
const client = async (port: number) => {
  const opened = await TestClient.open(port)
  clients.push(opened)
  return opened
}

beforeAll(async () => {
  host = await startHost({ maxGames: 20, rulesOf: (choice) => (choice.seed === 666 ? exploding : rulesFor(choice.dialect, choice.variant)) })
})
afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()))
  await host?.stop()
})

/** Awaits, on the host's own word that something changed, until `done` holds (no polling, a deadline). */
const until = (done: () => boolean, timeoutMs = 5000) => untilShown(host.games, done, timeoutMs)

/** A move key that takes player `index` onto a room spot with no gold from where it stands. */
const openMove = (state: GameState, index: number): string => {
  const at = state.players[index]!.position
  const cols = state.map.cols
  const steps: Record<string, number> = { h: -1, l: 1, j: cols, k: -cols, y: -cols - 1, u: -cols + 1, b: cols - 1, n: cols + 1 }
  return Object.keys(steps).find((key) => state.map.cells[at + steps[key]!] === 0x2e && !state.gold.has(at + steps[key]!))!
}

const recordingLines = (id: string) =>
  readFileSync(`${host.dataDir}/games/${id}.ndjson`, "utf8").trim().split("\n").map((line) => JSON.parse(line))

describe("nuggets host: games side by side", () => {
  it("two games on the same map do not see each other's players, gold or keys", async () => {
    const one = await postGame(host.url, { map: "main", seed: 1 })
    const two = await postGame(host.url, { map: "main", seed: 2 })
    expect([one.status, two.status]).toEqual([201, 201])
    expect(one.body.port).not.toBe(two.body.port)
    const [gameOne, gameTwo] = [host.games.find(one.body.id)!, host.games.find(two.body.id)!]
    // What each game took, message by message.
    const took = new Map<string, Array<string>>([[one.body.id, []], [two.body.id, []]])
    for (const game of [gameOne, gameTwo]) {
      observeGame(game.live, ({ request }) => took.get(game.id)!.push(request._tag === "Key" ? `KEY ${request.key}` : request._tag === "Play" ? `PLAY ${request.name}` : "SPECTATE"))
    }
    const [alice, watchOne, bob, watchTwo] = await Promise.all([client(one.body.port), client(one.body.port), client(two.body.port), client(two.body.port)])
    alice.send("PLAY Alice")
    bob.send("PLAY Bob")
    // Each is the first player of its own game.
    expect(await alice.next()).toBe("OK A")
    expect(await bob.next()).toBe("OK A")
    watchOne.send("SPECTATE")
    watchTwo.send("SPECTATE")
    const seenOne = gridOf(await watchOne.nextStarting("DISPLAY"))
    const seenTwo = gridOf(await watchTwo.nextStarting("DISPLAY"))
    expect(seenOne).toBe(renderView(gameOne.live.state(), "spectator"))
    expect(seenTwo).toBe(renderView(gameTwo.live.state(), "spectator"))
    // Different seeds, different gold; one player each.
    expect(seenOne).not.toBe(seenTwo)
    expect(seenOne.split("").filter((ch) => ch === "A")).toHaveLength(1)

    // Bob's keys move Bob only, and tell the first game's clients nothing.
    const oneBefore = JSON.stringify(gameOne.live.state().players.map((each) => [each.position, each.purse]))
    const [aliceHeard, watchOneHeard] = [alice.received.length, watchOne.received.length]
    const twoBefore = gameTwo.live.state().players[0]!.position
    const keys: Array<string> = []
    for (let i = 0; i < 4; i++) {
      const key = openMove(gameTwo.live.state(), 0)
      keys.push(`KEY ${key}`)
      bob.send(`KEY ${key}`)
      await watchTwo.nextStarting("DISPLAY")
    }
    // The first game's spectator asks for its view: what it hears is its answer, nothing of Bob's.
    watchOne.send("KEY \f")
    expect(gridOf(await watchOne.nextStarting("DISPLAY"))).toBe(seenOne)
    expect(alice.received.length).toBe(aliceHeard)
    expect(watchOne.received.slice(watchOneHeard).map((message) => message.split("\n")[0])).toEqual([expect.stringMatching(/^GOLD /), "DISPLAY"])
    expect(JSON.stringify(gameOne.live.state().players.map((each) => [each.position, each.purse]))).toBe(oneBefore)
    expect(gameTwo.live.state().players[0]!.position).not.toBe(twoBefore)
    // Each game took its own clients' messages only.
    expect(took.get(one.body.id)).toEqual(["PLAY Alice", "SPECTATE", "KEY \f"])
    expect(took.get(two.body.id)).toEqual(["PLAY Bob", "SPECTATE", ...keys])
  })

  it("a defect in one game (a rule that throws) ends that game alone: recorded as failed, logged with its id", async () => {
    const bad = await postGame(host.url, { map: "small", seed: 666 })
    const good = await postGame(host.url, { map: "small", seed: 5 })
    const [doomed, fine] = await Promise.all([client(bad.body.port), client(good.body.port)])
    doomed.send("PLAY Dora")
    fine.send("PLAY Finn")
    await doomed.nextStarting("DISPLAY")
    await fine.nextStarting("DISPLAY")
    explode = true
    try {
      doomed.send("KEY l")
      // The game ends as a stopped server ends it: its players are told to quit.
      expect(await doomed.nextStarting("QUIT")).toBe("QUIT server shutting down")
      const archived = host.games.archived()
      await until(() => host.games.find(bad.body.id) === undefined && host.games.archived() > archived)
    } finally {
      explode = false
    }
    // The other game plays on.
    fine.send("KEY \f")
    await fine.nextStarting("DISPLAY")
    expect(host.games.find(good.body.id)).toBeDefined()
    const failed = await Effect.runPromise(host.archive.game(bad.body.id))
    expect(failed).toMatchObject({ outcome: "failed", failure: "Error: the test's rule threw", standings: [{ name: "Dora", rank: 1 }] })
    const lines = recordingLines(bad.body.id)
    expect(lines.at(-1)).toMatchObject({ end: "failed", failure: "Error: the test's rule threw" })
    expect(host.log).toContain(`ERROR game ${bad.body.id}: a defect ended the game: Error: the test's rule threw`)
    const checked = await nuggetsInProcess("replay", `${host.dataDir}/games/${bad.body.id}.ndjson`, "--check")
    expect(checked.stdout, checked.stderr).toMatch(/OK — 1 moves, \d+ checkpoints and the summary match \(a defect in the server stopped the game\)/)
    // The page of the game that failed now replays it.
    const page = await fetch(new URL(`/games/${bad.body.id}/`, host.url), { redirect: "manual" })
    expect([page.status, page.headers.get("location")]).toEqual([302, `/archive/${bad.body.id}/`])
  })
})

describe("nuggets host: the lobby and the JSON API", () => {
  it("a game played to its end: listed live, then in the archive, its recording served, its winner on the leaderboard", async () => {
    const started = await postGame(host.url, { map: "small", seed: 3, dialect: "cs50-2021" })
    expect(started).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^\d{8}-\d{6}-[a-z0-9]{4}$/), port: expect.any(Number) } })
    expect(started.headers.get("location")).toBe(`/api/games/${started.body.id}`)
    const { id, port } = started.body
    const listed = await call(host.url, "/api/games")
    expect(listed.body.maps).toEqual(["main", "small", "hole"])
    expect(listed.body.maxGames).toBe(20)
    const live = listed.body.games.find((game: any) => game.id === id)
    expect(live).toMatchObject({ live: true, map: "small", port, dialect: "2021", variant: "classic", players: [], freePlaces: 26, over: false, nuggetsLeft: 250 })
    expect(live.join).toBe(`nuggets join 127.0.0.1 ${port} NAME`)
    expect(live.page).toBe(`/games/${id}/`)
    expect((await call(host.url, `/api/games/${id}`)).body).toEqual(live)

    // Its page, under its own path: the way without the slash leads there.
    const bare = await fetch(new URL(`/games/${id}`, host.url), { redirect: "manual" })
    expect([bare.status, bare.headers.get("location")]).toEqual([308, `/games/${id}/`])
    expect(await (await fetch(new URL(`/games/${id}/`, host.url))).text()).toContain('id="grid"')

    const [winner, watcher] = await Promise.all([client(port), client(port)])
    winner.send("PLAY Winnie")
    const first = await winner.nextStarting("DISPLAY")
    watcher.send("SPECTATE")
    const view = await watcher.nextStarting("DISPLAY")
    expect(first).toBeDefined()
    const archived = host.games.archived()
    expect(await collectAllGold(winner, watcher, gridOf(view))).toMatch(/^QUIT GAME OVER:/)
    await until(() => host.games.find(id) === undefined && host.games.archived() > archived)

    const past = await call(host.url, "/api/archive?player=winnie")
    expect(past.status).toBe(200)
    expect(past.body.games[0]).toMatchObject({
      id,
      live: false,
      map: "small",
      outcome: "over",
      winners: ["Winnie"],
      standings: [{ rank: 1, letter: "A", name: "Winnie", purse: 250 }],
      replay: `/archive/${id}/`,
      recording: `/api/archive/${id}/recording`
    })
    expect(past.body.games[0]).not.toHaveProperty("file")
    expect((await call(host.url, `/api/games/${id}`)).body).toMatchObject({ id, live: false, outcome: "over" })
    const recording = await fetch(new URL(`/api/archive/${id}/recording`, host.url))
    expect(recording.headers.get("content-type")).toBe("application/x-ndjson")
    expect(await recording.text()).toBe(readFileSync(`${host.dataDir}/games/${id}.ndjson`, "utf8"))
    const board = await call(host.url, "/api/leaderboard?player=WINNIE")
    expect(board.body).toEqual({ leaders: [{ name: "Winnie", games: 1, wins: 1, nuggets: 250, best: { game: id, purse: 250 } }] })

    // Its replay, in the game's page, fed every move at once.
    const replay = await fetch(new URL(`/archive/${id}/watch`, host.url))
    const reader = replay.body!.getReader()
    const { value } = await reader.read()
    await reader.cancel()
    expect(new TextDecoder().decode(value)).toMatch(/^event: hello\ndata: \{"mode":"replay"/)
    expect((await fetch(new URL(`/games/${id}/`, host.url), { redirect: "manual" })).headers.get("location")).toBe(`/archive/${id}/`)
  })

  it("the lobby's pages are served at /, /archive and /leaderboard; /events tells the games", async () => {
    for (const path of ["/", "/archive", "/leaderboard", "/archive?player=x"]) {
      const page = await fetch(new URL(path, host.url))
      expect(page.status, path).toBe(200)
      expect(page.headers.get("content-security-policy")).toMatch(/script-src 'sha256-/)
      expect(await page.text()).toContain('id="games"')
    }
    const events = await fetch(new URL("/events", host.url))
    const reader = events.body!.getReader()
    let text = ""
    while (!text.includes("event: archive")) text += new TextDecoder().decode((await reader.read()).value)
    await reader.cancel()
    expect(text).toMatch(/^event: hello\ndata: \{"maps":\["main","small","hole"\]/)
    expect(text).toMatch(/event: games\ndata: \{"games":\[/)
  })

  it("bad inputs get their 4xx as JSON, and nothing else happens", async () => {
    const running = host.games.running().length
    const json = { "content-type": "application/json" }
    const cases: ReadonlyArray<readonly [string, RequestInit & { path?: string }, number, RegExp]> = [
      ["bad JSON", { method: "POST", body: "{bad" }, 400, /^the body is not JSON/],
      ["an array", { method: "POST", body: "[]" }, 400, /must be a JSON object/],
      ["a negative seed", { method: "POST", body: '{"seed":-1}' }, 400, /^the body: seed: /],
      ["a seed with a fraction", { method: "POST", body: '{"seed":1.5}' }, 400, /^the body: seed: /],
      ["an unknown variant", { method: "POST", body: '{"variant":"rob"}' }, 400, /^the body: variant: /],
      ["an unknown dialect", { method: "POST", body: '{"dialect":"1999"}' }, 400, /^the body: dialect: a dialect: 2019 or 2021/],
      ["a misspelt field", { method: "POST", body: '{"seeed":1}' }, 400, /^the body: seeed: is not a field it takes/],
      ["an unknown map", { method: "POST", body: '{"map":"nope"}' }, 400, /^no map named "nope"; the maps are main, small, hole$/],
      ["an oversized body", { method: "POST", body: JSON.stringify({ map: "x".repeat(5000) }) }, 413, /larger than 4096 bytes/],
      ["a page of another site", { method: "POST", body: "{}", headers: { ...json, origin: "http://evil.example" } }, 403, /lobby's own page/],
      ["a method the route does not take", { method: "DELETE" }, 405, /^DELETE is not taken here: GET, POST only$/],
      ["an unknown route", { path: "/api/nope" }, 404, /^no such route/],
      ["an unknown game", { path: "/api/games/20990101-000000-zzzz" }, 404, /20990101-000000-zzzz/],
      ["a limit that is no number", { path: "/api/archive?limit=ten" }, 400, /^limit must be a whole number/],
      ["a limit out of range", { path: "/api/leaderboard?limit=0" }, 400, /^limit must be 1 to 100/],
      ["a cursor that is no game", { path: "/api/archive?before=x" }, 400, /^before: no game "x"/],
      ["a cursor of no game here", { path: "/api/archive?before=20990101-000000-zzzz" }, 400, /^before: no game/],
      ["the recording of no game", { path: "/api/archive/20990101-000000-zzzz/recording" }, 404, /20990101-000000-zzzz/]
    ]
    for (const [what, { path = "/api/games", ...init }, status, error] of cases) {
      const answer = await call(host.url, path, { headers: json, ...init })
      expect(answer.status, what).toBe(status)
      expect(answer.headers.get("content-type"), what).toBe("application/json; charset=utf-8")
      expect(errorOf(answer.body), what).toMatch(error)
    }
    // A body too large that says nothing of its length, sent as it comes: cut off at the limit.
    const chunked = await call(host.url, "/api/games", {
      method: "POST",
      headers: json,
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1000)))
          controller.close()
        }
      }),
      duplex: "half"
    } as RequestInit)
    expect([chunked.status, errorOf(chunked.body)]).toEqual([413, "the body is larger than 4096 bytes"])
    // Paths that climb out, as typed and percent-encoded: refused before any route.
    const host_ = new URL(host.url).host
    for (const path of ["/api/archive/../../etc/passwd/recording", "/api/archive/%2e%2e%2f%2e%2e%2fetc/recording", "/games/../api/games", "/..%2f"]) {
      expect(await statusFor(host.url, path, { host: host_ }), path).toBe(400)
    }
    expect(host.games.running().length).toBe(running)
  })
})

describe("nuggets host: a flood of new games", () => {
  it("starts no more than --max-games, nor more than the pace allows; the rest are refused with a reason", async () => {
    // Paces too slow to refill during the test: what is counted is the cap, and the burst.
    const capped = await startHost({ maxGames: 3, startRate: { perSecond: 0.001, burst: 4 } })
    const paced = await startHost({ maxGames: 50, startRate: { perSecond: 0.001, burst: 4 } })
    try {
      for (const [flooded, most, why] of [[capped, 3, /^the host runs its most games at once \(3\)/], [paced, 4, /^too many new games at once/]] as const) {
        const answers = await Promise.all(Array.from({ length: 40 }, () => postGame(flooded.url)))
        const started = answers.filter((answer) => answer.status === 201)
        expect(started).toHaveLength(most)
        expect(flooded.games.running()).toHaveLength(most)
        const refused = answers.filter((answer) => answer.status !== 201)
        expect(new Set(refused.map((answer) => answer.status))).toEqual(new Set([429]))
        expect(refused.every((answer) => answer.headers.get("retry-after") !== null)).toBe(true)
        expect(errorOf(refused[0]!.body)).toMatch(why)
      }
    } finally {
      await Promise.all([capped.stop(), paced.stop()])
    }
  })

  it("the pace: a burst at once, then so many a second", () => {
    const limits: Limits = { maxGames: 100, open: 0, ports: undefined, startRate: { perSecond: 2, burst: 4 }, everyone: { perSecond: 20, burst: 40 } }
    let books = openBooks(limits, 0)
    const take = (at: number) => {
      const admitted = admit(books, limits, at, "127.0.0.1")
      if (Either.isLeft(admitted)) return false
      books = admitted.right
      return true
    }
    expect([0, 0, 0, 0, 0].map(take)).toEqual([true, true, true, true, false])
    expect(take(499)).toBe(false)
    expect(take(500)).toBe(true)
    expect(take(10_000)).toBe(true)
    // Saved up to the burst, no more.
    expect([10_000, 10_000, 10_000, 10_000].map(take)).toEqual([true, true, true, false])
  })
})

describe("matchmaking: nuggets join http://HOST:PORT NAME", () => {
  it("joins a free place, the fullest game first, and has a game opened when every game is full", async () => {
    // Host of two places: two players fill one.
    const lobby = await startHost({ rulesOf: (choice) => ({ ...rulesFor(choice.dialect, choice.variant), maxPlayers: 2 }) })
    const players: Array<TestClient> = []
    const play = async (port: number, name: string) => {
      const player = await TestClient.open(port)
      players.push(player)
      player.send(`PLAY ${name}`)
      expect(await player.next()).toMatch(/^OK [AB]$/)
    }
    try {
      const url = new URL(lobby.url)
      // No game: one is opened.
      const first = await Effect.runPromise(findGame(url, "3 seconds"))
      expect(first).toMatchObject({ address: "127.0.0.1", opened: true, map: "main" })
      expect(lobby.games.find(first.id)?.port).toBe(first.port)
      await play(first.port, "Ann")
      // A second, empty game: the one with a player in it is offered.
      const empty = await postGame(lobby.url)
      expect(empty.status).toBe(201)
      const second = await Effect.runPromise(findGame(url, "3 seconds"))
      expect(second).toEqual({ ...first, opened: false })
      await play(second.port, "Bo")
      // That one is full now: the empty one.
      const third = await Effect.runPromise(findGame(url, "3 seconds"))
      expect(third).toMatchObject({ id: empty.body.id, opened: false })
      await play(third.port, "Cy")
      await play(third.port, "Di")
      // Every game full: a new one.
      const fourth = await Effect.runPromise(findGame(url, "3 seconds"))
      expect(fourth.opened).toBe(true)
      expect([first.id, empty.body.id]).not.toContain(fourth.id)
      expect(lobby.games.running()).toHaveLength(3)
      // A lobby that is not there: one line.
      const port = await new Promise<number>((resolve) => {
        const server = createServer().listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          server.close(() => resolve(port))
        })
      })
      const closed = await Effect.runPromise(Effect.flip(findGame(new URL(`http://127.0.0.1:${port}/`), "3 seconds")))
      expect(closed.message).toBe(`http://127.0.0.1:${port} — cannot reach the lobby: the port is closed`)
    } finally {
      await Promise.all(players.map((each) => each.close()))
      await lobby.stop()
    }
  })
})

describe("nuggets host: games no one is in", () => {
  it("a game no one has been in for the idle timeout ends, but not the one kept open; one no one came to leaves nothing", async () => {
    const quiet = await startHost({ open: 1, idleTimeout: Duration.millis(300) })
    try {
      const [kept] = quiet.games.running()
      // A second game (on a busy machine it may have been idle its 300 ms already by the next line).
      const extra = await postGame(quiet.url, { map: "small" })
      expect(extra.status).toBe(201)
      expect(extra.body.id).not.toBe(kept!.id)
      await untilShown(quiet.games, () => quiet.games.running().length === 1)
      // One of the two empty games ends: the other is the one --open keeps.
      const ended = quiet.games.running()[0]!.id === kept!.id ? extra.body.id : kept!.id
      expect(quiet.log).toContain(`INFO game ${ended}: no one in it for 300ms: ended`)
      expect(readdirSync(`${quiet.dataDir}/games`)).not.toContain(`${ended}.ndjson`)
      expect(await Effect.runPromise(Effect.flip(quiet.archive.game(ended)))).toMatchObject({ reason: "UnknownGame" })
    } finally {
      await quiet.stop()
    }
  })
})
