import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { Effect, Stream } from "effect"
import { rulesFor } from "../src/protocol/dialect.js"
import type { FleetTimings } from "../src/fleet/membership.js"
import { nuggetsInProcess } from "./cli/in-process.js"
import { call, postGame, startHost, type TestHost } from "./host/harness.js"
import { freshDatabase } from "./postgres.js"
import { collectAllGold, gridOf, TestClient } from "./server/harness.js"

/**
 * Three hosts of one fleet, in this process, on the run's PostgreSQL (a database of this
 * file's own), each a whole `nuggets host` as the command composes it: one lobby,
 * matchmaking, the archive and the leaderboard for all of them.
 */

const quick: FleetTimings = { renewEvery: "200 millis", leaseFor: "1 second", seatHeld: "3 seconds" }
let database: Awaited<ReturnType<typeof freshDatabase>>
const hosts: Array<TestHost> = []
const clients: Array<TestClient> = []

const host = async (name: string, settings: Parameters<typeof startHost>[0] = {}, url = database.url) => {
  const started = await startHost({ ...settings, fleet: { url, name, timings: quick } })
  hosts.push(started)
  return started
}
const client = async (port: number) => {
  const opened = await TestClient.open(port)
  clients.push(opened)
  return opened
}

beforeAll(async () => {
  database = await freshDatabase(inject("postgresUrl"))
})
afterAll(async () => {
  await Promise.all(clients.map((each) => each.close()))
  await Promise.all(hosts.map((each) => each.stop()))
  await database.drop()
})

/** Waits, on the lobby's own word that what it shows changed, until `done` holds; a deadline. */
const untilLobby = (at: TestHost, done: () => boolean, ms = 15_000) =>
  Effect.runPromise(at.lobby.changes.changes.pipe(Stream.filter(() => done()), Stream.take(1), Stream.runDrain, Effect.timeout(ms)))

describe("a fleet of three hosts on one PostgreSQL", () => {
  it("shows every host's games in every lobby, each with its own host's join line, its page there, and its answer from any host", async () => {
    const [ann, bob, cy] = await Promise.all([host("ann"), host("bob"), host("cy")])
    const started = await postGame(bob.url, { map: "small" })
    expect(started.status).toBe(201)
    expect(started.body).toMatchObject({ address: "127.0.0.1" })
    const { id, port } = started.body as { id: string; port: number }
    await Promise.all([ann, cy].map((each) => untilLobby(each, () => each.lobby.game(id) !== undefined)))
    const listed = await call(ann.url, "/api/games")
    const game = (listed.body.games as Array<any>).find((each) => each.id === id)
    expect(game).toMatchObject({ join: `nuggets join 127.0.0.1 ${port} NAME`, page: new URL(`/games/${id}/`, bob.url).href, map: "small" })
    expect((await call(cy.url, `/api/games/${id}`)).body).toMatchObject({ id, port, live: true })
    // A click on another host's game opens its page on its own host.
    const page = await fetch(new URL(`/games/${id}/`, ann.url), { redirect: "manual" })
    expect([page.status, page.headers.get("location")]).toEqual([302, new URL(`/games/${id}/`, bob.url).href])
    // A player who joins it shows in every lobby.
    const player = await client(port)
    player.send("PLAY Zoe")
    expect(await player.next()).toBe("OK A")
    await untilLobby(cy, () => cy.lobby.game(id)?.players.length === 1)
  })

  it("opens a game asked of a host that runs its most on another host with room, and answers where to join it", async () => {
    const full = await host("full", { maxGames: 1 })
    const other = await host("roomy", { maxGames: 5 })
    expect((await postGame(full.url)).status).toBe(201)
    const forwarded = await postGame(full.url, { map: "hole" })
    expect(forwarded.status).toBe(201)
    const { id, port } = forwarded.body as { id: string; port: number }
    // On another live host of the fleet with room (this one, or one of the others).
    expect(hosts.find((each) => each.games.find(id) !== undefined)?.games.find(id)?.port).toBe(port)
    expect(full.games.find(id)).toBeUndefined()
    void other
    // Asked of it, the other host does not send it on again.
    const refused = await postGame(full.url, { map: "nowhere" })
    expect(refused.status).toBe(400)
  })

  it("holds places in the database: two players never get the last place, and one game is opened at a time, never twins", async () => {
    // A fleet of its own: two hosts whose games take two players each, and no game yet.
    const own = await freshDatabase(inject("postgresUrl"))
    const pairs = { maxGames: 5, rulesOf: (choice: { dialect: "2019" | "2021"; variant: "classic" | "steal" }) => ({ ...rulesFor(choice.dialect, choice.variant), maxPlayers: 2 }) }
    const [one, two] = await Promise.all([host("pairs-1", pairs, own.url), host("pairs-2", pairs, own.url)])
    const before = new Set<string>()
    const asked = await Promise.all(Array.from({ length: 6 }, (_, i) => call([one, two][i % 2]!.url, "/api/match", { method: "POST" })))
    expect(asked.map((each) => each.status)).toEqual(Array(6).fill(200))
    const places = asked.map((each) => each.body as { id: string; opened: boolean })
    const byGame = new Map<string, number>()
    for (const place of places) if (!before.has(place.id)) byGame.set(place.id, (byGame.get(place.id) ?? 0) + 1)
    // Six places in games of two: at most two in each, so three games; opened one at a time, exactly three.
    expect([...byGame.values()].every((count) => count <= 2)).toBe(true)
    expect(places.filter((place) => place.opened)).toHaveLength(byGame.size)
    expect(byGame.size).toBe(3)
    await Promise.all([one, two].map((each) => each.stop()))
    hosts.splice(hosts.indexOf(one), 1)
    hosts.splice(hosts.indexOf(two), 1)
    await own.drop()
  })

  it("keeps one archive and one leaderboard for the fleet: a game played to its end on one host is there from any other, and its recording", async () => {
    const [player1, judge] = await Promise.all([host("player"), host("judge")])
    const started = await postGame(player1.url, { map: "small", seed: 3 })
    const { id, port } = started.body as { id: string; port: number }
    await untilLobby(judge, () => judge.lobby.game(id) !== undefined)
    const [alice, spectator] = await Promise.all([client(port), client(port)])
    alice.send("PLAY Alice")
    expect(await alice.next()).toBe("OK A")
    spectator.send("SPECTATE")
    const ended = await collectAllGold(alice, spectator, gridOf(await spectator.nextStarting("DISPLAY")))
    expect(ended).toMatch(/^GAMEOVER/)
    await untilLobby(judge, () => judge.lobby.game(id) === undefined)
    const past = await call(judge.url, `/api/games/${id}`)
    expect(past.body).toMatchObject({ id, live: false, winners: ["Alice"] })
    const recording = await fetch(new URL(`/api/archive/${id}/recording`, judge.url))
    expect(recording.status).toBe(200)
    expect((await recording.text()).split("\n")[0]).toContain('"format":"nuggets-recording"')
    const leaders = await call(judge.url, "/api/leaderboard?player=alice")
    expect(leaders.body.leaders[0]).toMatchObject({ name: "Alice", wins: 1 })
    // And from the command line, on no host at all.
    const listed = await nuggetsInProcess("archive", "list", "--database", database.url.href, "--player", "alice")
    expect(listed.code).toBe(0)
    expect(listed.stdout).toContain(id)
  })
})
