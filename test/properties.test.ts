import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { type GameState, join, pressKey, spectate, type Step } from "../src/core/game.js"
import { isSpot } from "../src/core/map.js"
import { renderView, Views } from "../src/core/render.js"
import { loadMap, seeded, seededGame } from "./support.js"

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

const apply = (state: GameState, step: Input, spectators: number): Step | undefined => {
  const effect = step.kind === "key"
    ? pressKey(state, `p${step.player}`, step.key)
    : spectate(state, `s${spectators}`)
  // Typed failures (unknown key, a player who quit) leave the state as it was.
  return Either.getOrUndefined(Effect.runSync(Effect.either(effect as Effect.Effect<Step, unknown>)))
}

const fullGame = (seed: number): GameState => {
  let state = seededGame(map, seed)
  for (let i = 0; i < 26; i++) state = seeded(seed + i, join(state, `p${i}`, `Player ${i}`)).state
  return state
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("invariants under random play by 26 players and a spectator", () => {
  it.prop(
    "gold is conserved, players stand on distinct spots, memory only grows, views are NR x NC, patched views match",
    [fc.integer({ min: 0, max: 1_000_000 }), fc.array(input, { minLength: 1, maxLength: 80 })],
    ([seed, inputs]) => {
      let state = fullGame(seed)
      const views = new Views(state)
      const inPlace = new Views(state)
      let spectators = 0
      for (const each of inputs) {
        if (state.over) break
        const result = apply(state, each, spectators)
        if (each.kind === "spectate") spectators++
        if (!result) continue
        const before = state
        // Without `reuse`, a buffer handed out earlier must never change.
        const held = views.display("spectator")
        const heldText = decode(held)
        state = result.state
        views.advance(state)
        expect(decode(held)).toBe(heldText)
        inPlace.advance(state, { reuse: true })

        const onMap = [...state.gold.values()].reduce((sum, n) => sum + n, 0)
        const purses = state.players.reduce((sum, p) => sum + p.purse, 0)
        expect(onMap).toBe(state.goldRemaining)
        expect(onMap + purses).toBe(250)

        const active = state.players.filter((p) => p.active)
        expect(new Set(active.map((p) => p.position)).size).toBe(active.length)
        for (const player of active) expect(isSpot(map.cells[player.position]!)).toBe(true)

        for (const player of state.players) {
          const known = before.players[player.index]!.known
          for (let i = 0; i < known.length; i++) if (known[i] === 1) expect(player.known[i]).toBe(1)
        }

        const viewers = [...active.map((p) => p.index), ...(state.spectator ? ["spectator" as const] : [])]
        for (const viewer of viewers) {
          const full = renderView(state, viewer)
          const lines = full.split("\n").slice(0, -1)
          expect(lines.length).toBe(map.rows)
          expect(lines.every((line) => line.length === map.cols)).toBe(true)
          expect(decode(views.display(viewer))).toBe("DISPLAY\n" + full)
          expect(decode(inPlace.display(viewer))).toBe("DISPLAY\n" + full)
        }
      }
    },
    { fastCheck: { numRuns: 15 } }
  )
})

describe("replay", () => {
  it("the same seed and the same inputs give byte-identical views", () => {
    const play = () => {
      const inputs = fc.sample(fc.array(input, { minLength: 200, maxLength: 200 }), { seed: 99, numRuns: 1 })[0]!
      let state = fullGame(5)
      const views = new Views(state)
      const frames: Array<string> = []
      let spectators = 0
      for (const each of inputs) {
        const result = apply(state, each, spectators)
        if (each.kind === "spectate") spectators++
        if (!result) continue
        state = result.state
        views.advance(state)
        for (const { viewer } of result.out) frames.push(decode(views.display(viewer)))
      }
      return frames
    }
    const first = play()
    expect(first.length).toBeGreaterThan(1000)
    expect(play()).toEqual(first)
  })
})
