import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Logger, LogLevel, Random } from "effect"
import { rules2021, rules2019, type Variant } from "../src/core/rules.js"
import { applyKey } from "../src/core/game.js"
import { addPlayer, addSpectator } from "../src/core/join.js"
import type { ClientId, Envelope, GameState, Transition, Viewer } from "../src/core/state.js"
import type { Dialect } from "../src/protocol/dialect.js"
import { expectedPlayerGrid } from "../src/protocol/display.js"
import { latin1 } from "../src/protocol/transcript.js"
import { makeLiveGame, receiveNow } from "../src/server/liveGame.js"
import type { Peer } from "../src/server/peer.js"
import { cell, emptyGame, loadMap, placePlayer, pressKeys, renderView } from "./support.js"

/**
 * The server sends a DISPLAY only to the viewers whose view changed. So the property that
 * matters: after every request, every player's and the spectator's LAST DISPLAY is its view
 * as it stands, worked out from scratch. Played through the game host (the core's notices,
 * the patched buffers, the sends), by players of whom a few move and the rest stand still
 * while others walk in and out of their sight and take gold in and out of it, with a
 * spectator who may come late, players who join late, quit, press Ctrl-L or PLAY again.
 */

const moveKeys = "hjklyubnHJKLYUBN"

type Step =
  /** A key of one of the few movers (`mover` among them), or of any player who joined. */
  | { readonly kind: "key"; readonly mover: boolean; readonly player: number; readonly key: string }
  | { readonly kind: "spectatorKey"; readonly key: string }
  | { readonly kind: "play" }
  | { readonly kind: "playAgain"; readonly player: number }
  | { readonly kind: "spectate" }
  | { readonly kind: "spectateAgain" }

const anyStep: fc.Arbitrary<Step> = fc.oneof(
  { weight: 40, arbitrary: fc.record({ kind: fc.constant("key" as const), mover: fc.constant(true), player: fc.nat(3), key: fc.constantFrom(...moveKeys) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("key" as const), mover: fc.constant(false), player: fc.nat(25), key: fc.constantFrom(...moveKeys) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("key" as const), mover: fc.boolean(), player: fc.nat(25), key: fc.constantFrom("Q", "\f", "x") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("spectatorKey" as const), key: fc.constantFrom("\f", "Q", "h") }) },
  { weight: 1, arbitrary: fc.constant({ kind: "play" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("playAgain" as const), player: fc.nat(25) }) },
  { weight: 2, arbitrary: fc.constant({ kind: "spectate" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "spectateAgain" as const }) }
)

const game = fc.record({
  seed: fc.integer({ min: 0, max: 1_000_000 }),
  map: fc.constantFrom("main.txt" as const, "small.txt" as const),
  dialect: fc.constantFrom<Dialect>("2019", "2021"),
  variant: fc.constantFrom<Variant>("classic", "steal"),
  players: fc.integer({ min: 1, max: 26 }),
  movers: fc.integer({ min: 1, max: 4 }),
  spectatorFirst: fc.boolean(),
  steps: fc.array(anyStep, { minLength: 1, maxLength: 120 })
})
type Game = typeof game extends fc.Arbitrary<infer G> ? G : never

const maps = { "main.txt": loadMap("main.txt"), "small.txt": loadMap("small.txt") }

/** How often what the property is about happened, over all games: each must, or the test proves little. */
const seen = {
  /** A player that stood still was sent a DISPLAY because someone came into or left its sight. */
  stillTold: 0,
  /** A player that stood still was sent nothing while others were sent DISPLAYs. */
  stillUntold: 0,
  /** Gold taken within sight of a player that stood still, and out of its sight. */
  goldInSight: 0,
  goldOutOfSight: 0,
  /** A spectator that came after some moves. */
  lateSpectator: 0
}

const gridRows = (display: string) => display.slice("DISPLAY\n".length).split("\n").slice(0, -1)

const viewers = (state: GameState): Array<{ readonly client: ClientId; readonly viewer: Viewer }> => [
  ...state.players.filter((p) => p.active).map((p) => ({ client: p.client, viewer: p.index as Viewer })),
  ...(state.spectator === undefined ? [] : [{ client: state.spectator, viewer: "spectator" as const }])
]

const playGame = (g: Game) =>
  Effect.gen(function*() {
    const rules = { ...(g.dialect === "2019" ? rules2019 : rules2021), variant: g.variant }
    const host = yield* makeLiveGame({ map: maps[g.map], rules, dialect: g.dialect, keysPerSecond: Infinity })
    /** The last DISPLAY each client got, and what it got for the request being handled. */
    const last = new Map<ClientId, string>()
    let got = new Map<ClientId, Array<string>>()
    const peers = new Map<ClientId, Peer>()
    const peerOf = (id: ClientId): Peer => {
      let peer = peers.get(id)
      if (peer === undefined) {
        peers.set(id, peer = {
          id,
          keepsBytes: false,
          send: (data) => {
            // Read as it is sent: the host patches its buffers in place afterwards.
            const text = typeof data === "string" ? data : latin1(data)
            got.get(id)?.push(text) ?? got.set(id, [text])
            if (text.startsWith("DISPLAY\n")) last.set(id, text)
          }
        })
      }
      return peer
    }
    let joined = 0
    let spectators = 0
    let moves = 0
    const send = (client: ClientId, message: string) =>
      Effect.gen(function*() {
        const before = host.state()
        got = new Map()
        yield* receiveNow(host, peerOf(client), new TextEncoder().encode(message))
        check(before, host.state(), message)
      })

    const check = (before: GameState, state: GameState, message: string) => {
      const spectatorGrid = gridRows(`DISPLAY\n${renderView(state, "spectator")}`)
      for (const { client, viewer } of viewers(state)) {
        expect(last.get(client), `${client}'s last DISPLAY after ${JSON.stringify(message)}`).toBe(`DISPLAY\n${renderView(state, viewer)}`)
        // What a checker of any server would hold it against, from the spectator's grid and this one.
        if (viewer !== "spectator") {
          const shown = gridRows(last.get(client)!)
          expect(expectedPlayerGrid(state.map, state.sight, spectatorGrid, state.players[viewer]!.letter, shown)).toEqual(shown)
        }
        const mine = got.get(client) ?? []
        // GOLD comes with a DISPLAY: some clients redraw their status line only then.
        const gold = mine.findIndex((text) => text.startsWith("GOLD "))
        if (gold !== -1) expect(mine.slice(gold).some((text) => text.startsWith("DISPLAY\n")), `${client} told GOLD without a DISPLAY`).toBe(true)
      }
      if (state === before) return
      // The rest counts what happened, to show the games were the ones the property is about.
      const taken = [...before.gold.keys()].filter((cell) => !state.gold.has(cell))
      let anyDisplay = false
      for (const text of [...got.values()].flat()) anyDisplay ||= text.startsWith("DISPLAY\n")
      for (const player of state.players) {
        const then = before.players[player.index]
        if (!player.active || then === undefined || !then.active || then.position !== player.position) continue
        const mine = got.get(player.client) ?? []
        const visible = state.sight.visibleFrom(player.position)
        if (taken.length > 0) {
          if (taken.some((cell) => visible.includes(cell))) seen.goldInSight++
          else seen.goldOutOfSight++
        } else if (mine.some((text) => text.startsWith("DISPLAY\n"))) seen.stillTold++
        else if (anyDisplay) seen.stillUntold++
      }
    }

    const spectate = () => {
      if (moves > 0) seen.lateSpectator++
      return send(`s${spectators++}`, "SPECTATE")
    }
    if (g.spectatorFirst) yield* spectate()
    for (; joined < g.players; joined++) yield* send(`p${joined}`, `PLAY Player ${joined}`)
    for (const each of g.steps) {
      if (host.state().over) break
      switch (each.kind) {
        case "key": {
          const player = each.mover ? each.player % Math.min(g.movers, joined) : each.player % joined
          if (moveKeys.includes(each.key)) moves++
          yield* send(`p${player}`, `KEY ${each.key}`)
          break
        }
        case "spectatorKey":
          yield* send(`s${Math.max(0, spectators - 1)}`, `KEY ${each.key}`)
          break
        case "play":
          yield* send(`p${joined}`, `PLAY Player ${joined}`)
          joined++
          break
        case "playAgain":
          yield* send(`p${each.player % joined}`, `PLAY Player ${each.player % joined}`)
          break
        case "spectate":
          yield* spectate()
          break
        case "spectateAgain":
          yield* send(`s${Math.max(0, spectators - 1)}`, "SPECTATE")
      }
    }
  }).pipe(
    Effect.scoped,
    Effect.withRandom(Random.make(g.seed)),
    Logger.withMinimumLogLevel(LogLevel.None)
  )

describe("every viewer's last DISPLAY is its view as it stands", () => {
  it("after every request, in random games where a few move and the rest stand still", async () => {
    await fc.assert(
      fc.asyncProperty(game, (g) => Effect.runPromise(playGame(g))),
      // A fixed seed makes the run the same every time.
      { numRuns: 40, seed: 20260126 }
    )
    expect(seen.stillTold).toBeGreaterThan(20)
    expect(seen.stillUntold).toBeGreaterThan(20)
    expect(seen.goldInSight).toBeGreaterThan(0)
    expect(seen.goldOutOfSight).toBeGreaterThan(0)
    expect(seen.lateSpectator).toBeGreaterThan(0)
  }, 60_000)
})

describe("who is sent a DISPLAY: those whose view changed", () => {
  const map = maps["main.txt"]
  const step = (effect: Effect.Effect<Transition, unknown>): Transition => Effect.runSync(effect as Effect.Effect<Transition>)
  const notices = (out: ReadonlyArray<Envelope>, to: string) => out.filter((e) => e.to === to).map((e) => e.notice)
  // S stands still at the foot of the big room's left leg: from there it sees the room's top
  // top rows up to column 14, not beyond. M walks along row 13 in and out of that sight.
  const still = cell(map, 18, 8)
  const walker = (gold: ReadonlyArray<number> = []) => {
    let state: GameState = { ...emptyGame(map), gold: new Map(gold.map((at) => [at, 5])), goldRemaining: 5 * gold.length }
    state = placePlayer(state, "s", "Still", still)
    state = placePlayer(state, "m", "Mover", cell(map, 13, 16))
    return step(addSpectator(state, "w")).state
  }
  const displayed = (out: ReadonlyArray<Envelope>) => out.filter((e) => e.notice._tag === "Display").map((e) => e.to)

  it("a step out of sight: the mover and the spectator only; into sight and out again: the one watching too", () => {
    let state = walker()
    const expected = [["m", "w"], ["s", "m", "w"], ["s", "m", "w"], ["m", "w"]]
    for (const [i, key] of ["h", "h", "l", "l"].entries()) {
      const out = step(applyKey(state, "m", key))
      expect(displayed(out.notices), `key ${i + 1}`).toEqual(expected[i])
      // Told exactly when what it sees changed.
      expect(renderView(out.state, 0) !== renderView(state, 0)).toBe(expected[i]!.includes("s"))
      state = out.state
    }
  })

  it("gold taken out of sight: GOLD to everyone, and so a DISPLAY to everyone", () => {
    const out = step(applyKey(walker([cell(map, 13, 17)]), "m", "l"))
    expect(notices(out.notices, "s")).toEqual([{ _tag: "Gold", collected: 0, purse: 0, remaining: 0 }, { _tag: "Display" }, { _tag: "GameOver" }])
    expect(displayed(out.notices)).toEqual(["s", "m", "w"])
  })

  it("a player who quits out of sight: the spectator only; in sight: the one watching too", () => {
    expect(displayed(step(applyKey(walker(), "m", "Q")).notices)).toEqual(["w"])
    const near = pressKeys(walker(), "m", "hh")
    expect(displayed(step(applyKey(near, "m", "Q")).notices)).toEqual(["s", "w"])
  })

  it("a newcomer out of sight: itself and the spectator; the mover alone for a move into a wall; the newcomer alone for a spectator's arrival", () => {
    let state = placePlayer(emptyGame(map), "s", "Still", still)
    state = step(addSpectator(state, "w")).state
    const far = step(addPlayer({ ...state, map: { ...map, roomSpots: Int32Array.of(cell(map, 13, 20)) } }, "n", "New"))
    expect(displayed(far.notices)).toEqual(["n", "w"])
    expect(displayed(step(applyKey(placePlayer(state, "a", "Ann", cell(map, 13, 6)), "a", "h")).notices)).toEqual(["a"])
    expect(displayed(step(addSpectator(state, "w2")).notices)).toEqual(["w2"])
  })
})

describe("expectedPlayerGrid: what a checker of any server holds a player's last DISPLAY against", () => {
  it("is the player's view as it stands; a view left stale (someone came into sight) is not", () => {
    const map = maps["main.txt"]
    // S stands still where it sees row 13 up to column 14; M steps from column 15 to 14, into its sight.
    let state: GameState = { ...emptyGame(map), gold: new Map([[cell(map, 18, 10), 3]]), goldRemaining: 3 }
    state = placePlayer(placePlayer(state, "s", "Still", cell(map, 18, 8)), "m", "Mover", cell(map, 13, 15))
    const stale = gridRows(`DISPLAY\n${renderView(state, 0)}`)
    const next = pressKeys(state, "m", "h")
    const fresh = gridRows(`DISPLAY\n${renderView(next, 0)}`)
    expect(fresh).not.toEqual(stale)
    const spectator = gridRows(`DISPLAY\n${renderView(next, "spectator")}`)
    expect(expectedPlayerGrid(map, next.sight, spectator, "A", fresh)).toEqual(fresh)
    expect(expectedPlayerGrid(map, next.sight, spectator, "A", stale)).toEqual(fresh)
    // Nothing to say of a player the spectator does not show, or of grids of another size.
    expect(expectedPlayerGrid(map, next.sight, spectator, "C", fresh)).toBeUndefined()
    expect(expectedPlayerGrid(map, next.sight, spectator.slice(1), "A", fresh)).toBeUndefined()
  })
})
