import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { applyKey, newGame } from "../src/core/game.js"
import { addPlayer } from "../src/core/join.js"
import { rules2021, rules2019 } from "../src/core/rules.js"
import type { GameState } from "../src/core/state.js"
import { expectedPlayerView, viewOf } from "../src/core/view.js"
import { makeSight } from "../src/core/visibility.js"
import { viewText } from "../src/protocol/display.js"
import { loadMap, seeded } from "./support.js"

/**
 * `expectedPlayerView`, the view a player should be shown worked out without a game state
 * (as `check server` judges another server's DISPLAY), against the view our own server
 * sends (`viewOf`): built only from what the spectator's DISPLAY shows (who stands where,
 * the piles) and what the player has seen, it must be the same, by either sight rule.
 */

const map = loadMap("main.txt")
const moveKeys = "hjklyubnHJKLYUBN"
/** Each spot's visible set is worked out once for all the runs. */
const sights = { allSpots: makeSight(map, "allSpots"), roomSpotsOnly: makeSight(map, "roomSpotsOnly") }

/** The other players and the piles, read off the spectator's DISPLAY as a checker reads it. */
const seenBySpectator = (state: GameState) => {
  const text = viewText(viewOf(state, "spectator")).replace(/\n/g, "")
  const players: Array<{ index: number; position: number; active: boolean }> = []
  const gold = new Set<number>()
  for (const [cell, char] of [...text].entries()) {
    if (char === "*") gold.add(cell)
    else if (char >= "A" && char <= "Z") players.push({ index: char.charCodeAt(0) - 65, position: cell, active: true })
  }
  return { players, gold }
}

describe("the view a player should be shown, from the spectator's view and what it has seen", () => {
  it.prop(
    "is the view our server gives it, after any moves, by the spec's rule and the 2021 one",
    [fc.integer({ min: 0, max: 1_000_000 }), fc.array(fc.tuple(fc.nat(5), fc.constantFrom(...moveKeys)), { maxLength: 40 }), fc.boolean()],
    ([seed, moves, cs50]) => {
      const rules = cs50 ? rules2021 : rules2019
      let state: GameState = { ...seeded(seed, newGame(map, rules)), sight: sights[rules.sight] }
      for (let i = 0; i < 6; i++) state = seeded(seed + i, addPlayer(state, `p${i}`, `Player ${i}`)).state
      for (const [player, key] of moves) {
        if (state.over) break
        state = Either.getOrElse(applyKey(state, `p${player}`, key), () => ({ state })).state
      }
      const occupants = seenBySpectator(state)
      for (const player of state.players.filter((each) => each.active)) {
        const expected = expectedPlayerView(state.sight, player, occupants)
        const served = viewOf(state, player.index)
        expect(viewText(expected)).toBe(viewText(served))
        // What the text cannot tell: the map character under each occupant.
        expect(Buffer.compare(expected.terrain, served.terrain)).toBe(0)
        expect(Buffer.compare(expected.occupants, served.occupants)).toBe(0)
      }
    },
    { fastCheck: { numRuns: 30 } }
  )

  it("shows what the player remembers, but only what it sees now of who stands there", () => {
    let state = seeded(7, newGame(map))
    state = seeded(7, addPlayer(state, "a", "Alice")).state
    const alice = state.players[0]!
    const nothing = expectedPlayerView(state.sight, { ...alice, known: new Uint8Array(map.cells.length) }, { players: [], gold: new Set() })
    const everything = expectedPlayerView(state.sight, { ...alice, known: new Uint8Array(map.cells.length).fill(1) }, { players: [], gold: new Set() })
    // Remembering nothing, only what is in sight is drawn; remembering all, the whole map (itself as @).
    const drawn = (view: typeof nothing) => viewText(view).replace(/[ \n]/g, "").length
    expect(drawn(nothing)).toBe(new Set(state.sight.visibleFrom(alice.position)).size)
    expect(drawn(everything)).toBe(map.cells.filter((cell) => cell !== 0x20).length)
    // Gold out of its sight is not drawn; gold in sight is.
    const visible = [...state.sight.visibleFrom(alice.position)].filter((cell) => map.cells[cell] === 0x2e && cell !== alice.position)
    const hidden = [...map.cells.keys()].find((cell) => map.cells[cell] === 0x2e && !visible.includes(cell))!
    const withGold = expectedPlayerView(state.sight, alice, { players: [], gold: new Set([visible[0]!, hidden]) })
    expect(viewText(withGold).replace(/\n/g, "")[visible[0]!]).toBe("*")
    expect(viewText(withGold).replace(/\n/g, "")[hidden]).not.toBe("*")
  })
})
