import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { readFileSync } from "node:fs"
import type { GameState } from "../src/core/state.js"
import { isSpot, parseMap } from "../src/core/map.js"
import { mapsDir } from "./support.js"
import { startServer, TestClient } from "./server/harness.js"
import { owned } from "./owned.js"

const map = Either.getOrThrow(parseMap(readFileSync(mapsDir + "main.txt", "utf8")))

const token = fc.constantFrom(
  "PLAY", "PLAY ", "PLAY Fuzzy", "SPECTATE", "KEY", "KEY ", "KEY h", "KEY L", "KEY Q", "KEY y", "KEY ZZ", "play x",
  "OK A", "GRID 2 2", "DISPLAY\n", "\r\n", "\u0000", "é", "KEY \u0003", " ", "\n", "GAMEOVER\n"
)
const datagram: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 64 }),
  fc.uint8Array({ minLength: 1000, maxLength: 65507 }),
  fc.array(token, { maxLength: 4 }).map((parts) => new TextEncoder().encode(parts.join(""))),
  fc.tuple(token, fc.string({ maxLength: 20 })).map(([a, b]) => new TextEncoder().encode(a + b))
)

const checkInvariants = (state: GameState) => {
  const onMap = [...state.gold.values()].reduce((sum, n) => sum + n, 0)
  const purses = state.players.reduce((sum, p) => sum + p.purse, 0)
  if (onMap !== state.goldRemaining || onMap + purses !== 250) throw new Error("gold not conserved")
  const active = state.players.filter((p) => p.active)
  if (new Set(active.map((p) => p.position)).size !== active.length) throw new Error("two players on one spot")
  if (!active.every((p) => isSpot(map.cells[p.position]!))) throw new Error("a player off the spots")
  if (state.players.length > 26) throw new Error("too many players")
}

describe("serve under fire", () => {
  it("thousands of random and malformed datagrams from many addresses: no crash, invariants hold, PLAY still works", async () => {
    const states: Array<GameState> = []
    let violations = 0
    const server = await startServer({
      map,
      seed: 9,
      observe: ({ transition: { state } }) => {
        states.push(state)
        try {
          checkInvariants(state)
        } catch {
          violations++
        }
      }
    })
    owned(server, (server) => server.stop())
    const senders = await Promise.all(Array.from({ length: 16 }, () => TestClient.open(server.port)))
    for (const sender of senders) owned(sender, (sender) => sender.close())
    const sentinel = await TestClient.open(server.port)
    owned(sentinel, (sentinel) => sentinel.close())
    sentinel.send("PLAY Sentinel")
    await sentinel.nextStarting("DISPLAY")
    /** Asks until answered: under a flood the kernel may drop the probe itself. */
    const probe = async () => {
      for (let attempt = 0; attempt < 20; attempt++) {
        sentinel.send("KEY ?")
        try {
          return await sentinel.nextStarting("NO unknown keystroke", 500)
        } catch {
          // dropped; ask again
        }
      }
      throw new Error("the server stopped answering")
    }

    // Sent in batches small enough for the server's receive buffer; after each, a probe's
    // answer proves the server has read the batch and is still alive.
    const samples = fc.sample(fc.tuple(fc.nat(15), datagram), { seed: 1234, numRuns: 4000 })
    let batchBytes = 0
    let batches = 0
    for (let i = 0; i < samples.length; i++) {
      const [who, bytes] = samples[i]!
      senders[who]!.send(bytes)
      batchBytes += bytes.length + 64
      if (batchBytes > 100_000 || i === samples.length - 1) {
        await probe()
        batchBytes = 0
        batches++
      }
    }
    expect(batches).toBeGreaterThan(10)

    const newcomer = await TestClient.open(server.port)
    owned(newcomer, (newcomer) => newcomer.close())
    newcomer.send("PLAY Newcomer")
    expect(await newcomer.nextStarting("OK ", 10_000)).toMatch(/^OK [A-Z]$/)
    expect(await newcomer.next()).toBe("GRID 21 79")
    expect(await newcomer.next()).toMatch(/^GOLD 0 0 \d+$/)
    expect((await newcomer.next()).startsWith("DISPLAY\n")).toBe(true)

    // The fuzz did reach the game: players joined and moved.
    expect(states.length).toBeGreaterThan(20)
    expect(violations).toBe(0)
    checkInvariants(states.at(-1)!)
  }, 60_000)
})
