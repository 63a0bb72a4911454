import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { applyKey } from "../src/core/game.js"
import { addPlayer, addSpectator } from "../src/core/join.js"
import type { GameState, Transition, Viewer } from "../src/core/state.js"
import { isSpot } from "../src/core/map.js"
import { makeSight } from "../src/core/visibility.js"
import { patchView, updateView, type View, viewChanged, viewOf } from "../src/core/view.js"
import { viewText } from "../src/protocol/display.js"
import { DisplayBuffers } from "../src/server/views.js"
import { loadMap, renderView, seededGame } from "./support.js"

const map = loadMap("main.txt")
const moveKeys = "hjklyubnHJKLYUBN"

type Input =
  | { readonly kind: "key"; readonly player: number; readonly key: string }
  | { readonly kind: "spectate" }

const input: fc.Arbitrary<Input> = fc.oneof(
  { weight: 30, arbitrary: fc.record({ kind: fc.constant("key" as const), player: fc.nat(25), key: fc.constantFrom(...moveKeys) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("key" as const), player: fc.nat(25), key: fc.constantFrom("Q", "x", "?") }) },
  { weight: 1, arbitrary: fc.constant({ kind: "spectate" as const }) }
)

const apply = (state: GameState, step: Input, spectators: number): Transition | undefined => {
  const effect = step.kind === "key"
    ? applyKey(state, `p${step.player}`, step.key)
    : addSpectator(state, `s${spectators}`)
  // Typed failures (unknown key, a player who quit) leave the state as it was.
  return Either.getOrUndefined(Effect.runSync(Effect.either(effect as Effect.Effect<Transition, unknown>)))
}

const fullGame = (seed: number, variant: "classic" | "steal"): GameState => {
  let state = seededGame(map, seed)
  state = { ...state, rules: { ...state.rules, variant } }
  for (let i = 0; i < 26; i++) state = Either.getOrThrow(addPlayer(state, `p${i}`, `Player ${i}`)).state
  return state
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

const viewersOf = (state: GameState): Array<Viewer> => [
  ...state.players.filter((p) => p.active).map((p) => p.index),
  ...(state.spectator ? ["spectator" as const] : [])
]

describe("invariants under random play by 26 players and a spectator", () => {
  it.prop(
    "gold is conserved, players stand on distinct spots, memory is all each has seen, views are NR x NC, patched views match, no view changes without a DISPLAY",
    [fc.integer({ min: 0, max: 1_000_000 }), fc.array(input, { minLength: 1, maxLength: 80 }), fc.constantFrom("classic" as const, "steal" as const)],
    ([seed, inputs, variant]) => {
      let state = fullGame(seed, variant)
      const buffers = new DisplayBuffers(state)
      const inPlace = new DisplayBuffers(state)
      // The pure path: each viewer's cells, brought up to date from change sets alone.
      const views = new Map<Viewer, View>(viewersOf(state).map((viewer) => [viewer, viewOf(state, viewer)]))
      // What each player has seen, from every spot it stood on: its memory must be exactly this.
      const seen = state.players.map((player) => {
        const cells = new Uint8Array(map.cells.length)
        for (const cell of state.sight.visibleFrom(player.position)) cells[cell] = 1
        return cells
      })
      let spectators = 0
      for (const each of inputs) {
        if (state.over) break
        const result = apply(state, each, spectators)
        if (each.kind === "spectate") spectators++
        if (!result) continue
        const before = state
        // Without `reuse`, a buffer handed out earlier must never change.
        const held = buffers.display("spectator")
        const heldText = decode(held)
        state = result.state
        buffers.advance(result)
        expect(decode(held)).toBe(heldText)
        inPlace.advance(result, { reuse: true })
        // The server patches only the buffers of the viewers sent a DISPLAY: for every
        // other, the change set must change nothing.
        const told = new Set(result.notices.filter(({ notice }) => notice._tag === "Display").map(({ viewer }) => viewer))
        // And exactly those are told whose view changed, or who are told GOLD.
        if (result.changes.cells.length > 0) {
          const gold = new Set(result.notices.filter(({ notice }) => notice._tag === "Gold").map(({ viewer }) => viewer))
          for (const viewer of viewersOf(state)) expect(told.has(viewer), `viewer ${viewer}`).toBe(viewChanged(state, viewer, result.changes) || gold.has(viewer))
        }
        for (const viewer of viewersOf(state)) {
          if (told.has(viewer)) continue
          let painted = 0
          patchView(state, viewer, result.changes, () => painted++)
          expect(painted, `viewer ${viewer} was sent no DISPLAY, but its view changed`).toBe(0)
        }
        for (const viewer of viewersOf(state)) {
          const view = views.get(viewer)
          views.set(viewer, view ? updateView(view, state, viewer, result.changes) : viewOf(state, viewer))
        }

        const onMap = [...state.gold.values()].reduce((sum, n) => sum + n, 0)
        const purses = state.players.reduce((sum, p) => sum + p.purse, 0)
        expect(onMap).toBe(state.goldRemaining)
        expect(onMap + purses).toBe(250)

        const active = state.players.filter((p) => p.active)
        expect(new Set(active.map((p) => p.position)).size).toBe(active.length)
        expect(active.filter((player) => !isSpot(map.cells[player.position]!)).map((player) => player.letter)).toEqual([])

        // One expect per step, not per gridpoint: an expect costs far more than the comparison.
        const forgotten = state.players.flatMap((player) => {
          const known = before.players[player.index]!.known
          return Array.from(known.keys()).filter((i) => known[i] === 1 && player.known[i] !== 1).map((i) => `${player.letter} forgot ${i}`)
        })
        expect(forgotten).toEqual([])
        for (const walk of result.changes.walks) {
          for (const spot of walk.path) for (const cell of state.sight.visibleFrom(spot)) seen[walk.player]![cell] = 1
        }
        const misremembered = state.players.flatMap((player) =>
          Array.from(player.known.keys()).filter((i) => player.known[i] !== seen[player.index]![i]).map((i) => `${player.letter} at ${i}`)
        )
        expect(misremembered).toEqual([])

        for (const viewer of viewersOf(state)) {
          const full = renderView(state, viewer)
          const lines = full.split("\n").slice(0, -1)
          expect(lines.length).toBe(map.rows)
          expect(lines.every((line) => line.length === map.cols)).toBe(true)
          expect(decode(buffers.display(viewer))).toBe("DISPLAY\n" + full)
          expect(decode(inPlace.display(viewer))).toBe("DISPLAY\n" + full)
          expect(viewText(views.get(viewer)!)).toBe(full)
        }
      }
    },
    // A fixed seed makes the run the same every time; the timeout allows for a loaded machine
    // (it takes about 3 s on an idle one).
    { fastCheck: { numRuns: 20, seed: 20261123 }, timeout: 30_000 }
  )
})

describe("sight", () => {
  // Who is sent a DISPLAY is worked out from the changed gridpoints' sight (see forEachChangedView).
  it("is symmetric between spots, on every map and by both rules", () => {
    for (const name of ["main.txt", "small.txt", "hole.txt", "cramped.txt", "large.txt"]) {
      const each = loadMap(name)
      const spots = Array.from(each.cells.keys()).filter((cell) => isSpot(each.cells[cell]!))
      // Every spot of the small maps; a spread of a few hundred on the large one.
      const tried = spots.filter((_, i) => i % Math.ceil(spots.length / 400) === 0)
      for (const rule of ["allSpots", "roomSpotsOnly"] as const) {
        const sight = makeSight(each, rule)
        const sees = new Map(tried.map((spot) => [spot, new Set(sight.visibleFrom(spot))]))
        const oneWay: Array<string> = []
        for (const a of tried) for (const b of tried) if (sees.get(a)!.has(b) && !sees.get(b)!.has(a)) oneWay.push(`${a} sees ${b}`)
        expect(oneWay, `${name}, ${rule}`).toEqual([])
        expect(tried.length).toBeGreaterThan(10)
      }
    }
  })
})

describe("replay", () => {
  it("the same seed and the same inputs give byte-identical views", () => {
    const play = () => {
      const inputs = fc.sample(fc.array(input, { minLength: 200, maxLength: 200 }), { seed: 99, numRuns: 1 })[0]!
      let state = fullGame(5, "steal")
      const buffers = new DisplayBuffers(state)
      const frames: Array<string> = []
      let spectators = 0
      for (const each of inputs) {
        const result = apply(state, each, spectators)
        if (each.kind === "spectate") spectators++
        if (!result) continue
        state = result.state
        buffers.advance(result)
        for (const { viewer } of result.notices) frames.push(decode(buffers.display(viewer)))
      }
      return frames
    }
    const first = play()
    expect(first.length).toBeGreaterThan(1000)
    expect(play()).toEqual(first)
  })
})
