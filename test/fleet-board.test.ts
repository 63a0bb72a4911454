import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { Effect, Stream } from "effect"
import { mapText } from "../src/core/map.js"
import type { PostedGame } from "../src/fleet/board.js"
import { startMember, type Member } from "./fleet/member.js"
import { freshDatabase } from "./postgres.js"
import { loadMap, walkRecording } from "./support.js"

/** Hosts of one fleet on one PostgreSQL (the run's own), without their games: the board, the leases, the sweeper. */

let database: Awaited<ReturnType<typeof freshDatabase>>
const members: Array<Member> = []
const member = async (name: string) => {
  const started = await startMember(database.url, name)
  members.push(started)
  return started
}

beforeAll(async () => {
  database = await freshDatabase(inject("postgresUrl"))
})
afterAll(async () => {
  await Promise.all(members.map((each) => each.leave()))
  await database.drop()
})

/** Waits, on the board's own word that it changed, until `done` holds; a deadline. */
const untilBoard = (host: Member, done: () => boolean, ms = 15_000) =>
  Effect.runPromise(host.board.changes.changes.pipe(Stream.filter(() => done()), Stream.take(1), Stream.runDrain, Effect.timeout(ms)))

const posted = (id: string, overrides: Partial<PostedGame> = {}): PostedGame => ({
  id,
  port: 4000,
  shown: { id, map: "small", players: [] },
  freePlaces: 26,
  playing: 0,
  startedMs: Date.parse("2026-11-28T12:00:00Z"),
  over: false,
  ...overrides
})

describe("the fleet's board", () => {
  it("shows every host the games of every other, with the address to join each at, soon after they change", async () => {
    const [ann, bob] = await Promise.all([member("ann"), member("bob")])
    await Effect.runPromise(ann.board.post([posted("20261128-120000-aaaa")]))
    await untilBoard(bob, () => bob.board.games().some((game) => game.id === "20261128-120000-aaaa"))
    expect(bob.board.games().find((game) => game.id === "20261128-120000-aaaa")).toMatchObject({
      joinAddress: "ann",
      lobbyUrl: "http://ann.invalid/",
      hostId: ann.membership.hostId,
      freePlaces: 26
    })
    await Effect.runPromise(ann.board.post([posted("20261128-120000-aaaa", { freePlaces: 25, playing: 1 })]))
    await untilBoard(bob, () => bob.board.games().find((game) => game.id === "20261128-120000-aaaa")?.playing === 1)
    await Effect.runPromise(ann.board.withdraw("20261128-120000-aaaa"))
    await untilBoard(bob, () => !bob.board.games().some((game) => game.id === "20261128-120000-aaaa"))
  })

  it("a host whose lease lapses is claimed by exactly one survivor: its games end interrupted, replayable, and leave every lobby; back, it finds it lost and can write nothing", async () => {
    const [dead, one] = await Promise.all([member("dead"), member("one"), member("two")])
    const started = await Effect.runPromise(dead.owner.gameStarted({ mapName: "main", mapText: mapText(loadMap("main.txt")), seed: 6, variant: "classic", dialect: "2019" }))
    // What a host that died mid-game leaves: a recording with no end.
    await Effect.runPromise(Effect.scoped(Effect.flatMap(started.recording, (file) => Effect.sync(() => {
      file.write(walkRecording("hhhhl"))
      file.flush()
    }))))
    await Effect.runPromise(dead.board.post([posted(started.id, { playing: 1, freePlaces: 25 })]))
    await untilBoard(one, () => one.board.games().some((game) => game.id === started.id))
    // As if it had stopped renewing a while ago: its lease lapsed, and its row moved on (it can renew no more).
    await Effect.runPromise(dead.sql`UPDATE fleet_hosts SET lease_until = now() - interval '1 minute', epoch = epoch + 1 WHERE id = ${dead.membership.hostId}`)
    await untilBoard(one, () => !one.board.games().some((game) => game.id === started.id))
    const claims = members.flatMap((each) => each.log).filter((line) => line.includes(`host ${dead.membership.hostId}: its lease lapsed`))
    expect(claims).toHaveLength(1)
    const archived = await Effect.runPromise(one.archive.game(started.id))
    expect(archived).toMatchObject({ outcome: "interrupted", moves: 6 })
    expect(archived.standings.map((each) => each.name)).toEqual(["Alice"])
    // Back: its next renewal finds its row claimed; what it writes now is refused by its fence.
    await Effect.runPromise(dead.membership.lost.pipe(Effect.timeout(3000)))
    expect(dead.membership.holding()).toBe(false)
    await Effect.runPromise(dead.board.post([posted(started.id)]))
    await Effect.runPromise(one.board.refresh)
    expect(one.board.games().some((game) => game.id === started.id)).toBe(false)
  })
})
