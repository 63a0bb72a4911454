import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import type { GameState } from "../src/core/state.js"
import { isSpot } from "../src/core/map.js"
import { isVisible, makeSight, visibleByBruteForce } from "../src/core/visibility.js"
import { cell, emptyGame, loadMap, placePlayer, pressKeys, renderView } from "./support.js"

const map = loadMap("main.txt")

/** The spec prints only the lowest rows of each example; the rows above are blank. */
const specView = (n: number) => {
  const shown = readFileSync(new URL(`golden/spec-view-${n}.txt`, import.meta.url), "utf8").split("\n").slice(0, -1)
  const blank = " ".repeat(map.cols)
  return [...Array<string>(map.rows - shown.length).fill(blank), ...shown].map((line) => line + "\n").join("")
}

describe("visibility: the spec's worked examples, character for character", () => {
  // Gold where the spec's pictures show it.
  const gold: Array<[number, number]> = [[13, 9], [14, 15], [14, 19], [14, 24], [16, 35], [19, 29]]
  const start: GameState = placePlayer(
    {
      ...emptyGame(map),
      gold: new Map(gold.map(([row, col]) => [cell(map, row, col), 10] as const)),
      goldRemaining: 60
    },
    "player",
    "Alice",
    cell(map, 18, 33)
  )

  it("at game start", () => {
    expect(renderView(start, 0)).toBe(specView(1))
  })

  const upAFew = pressKeys(start, "player", "kkk")
  it("after moving up a few spots", () => {
    expect(renderView(upAFew, 0)).toBe(specView(2))
  })

  const leftForGold = pressKeys(upAFew, "player", "k" + "h".repeat(18))
  it("going up one and moving left to collect gold", () => {
    expect(leftForGold.players[0]!.purse).toBe(30)
    expect(renderView(leftForGold, 0)).toBe(specView(3))
  })

  it("backtracking down the passage to the corner", () => {
    const corner = pressKeys(leftForGold, "player", "l".repeat(18) + "jnlllL")
    expect(corner.players[0]!.position).toBe(cell(map, 16, 48))
    expect(renderView(corner, 0)).toBe(specView(4))
  })
})

describe("visibility rule", () => {
  it("never shows solid rock", () => {
    expect(isVisible(map, cell(map, 18, 33), cell(map, 17, 20))).toBe(false)
  })
  it("along a row, every gridpoint between must be a spot", () => {
    // Along the passage on row 16 from its corner back into the room.
    expect(isVisible(map, cell(map, 16, 48), cell(map, 16, 29))).toBe(true)
    expect(isVisible(map, cell(map, 16, 48), cell(map, 16, 29), "roomSpotsOnly")).toBe(false)
    expect(isVisible(map, cell(map, 13, 6), cell(map, 13, 40))).toBe(false)
  })
  it("a gridpoint sees itself", () => {
    expect(isVisible(map, cell(map, 18, 33), cell(map, 18, 33))).toBe(true)
  })
  it("is symmetric on this map for spots", () => {
    const a = cell(map, 18, 33)
    for (const b of [cell(map, 14, 15), cell(map, 13, 9), cell(map, 16, 35)]) {
      expect(isVisible(map, a, b)).toBe(isVisible(map, b, a))
    }
  })
})

describe("the cached visible sets", () => {
  // makeSight only tries gridpoints near the rooms beside a spot; it must agree with trying them all.
  for (const [file, every] of [["main.txt", 1], ["hole.txt", 1], ["small.txt", 1], ["large.txt", 97]] as const) {
    it(`match trying every gridpoint, on maps/${file}, for both sight rules`, () => {
      const grid = loadMap(file)
      for (const rule of ["allSpots", "roomSpotsOnly"] as const) {
        const sight = makeSight(grid, rule)
        let checked = 0
        for (let spot = 0; spot < grid.cells.length; spot += every) {
          if (!isSpot(grid.cells[spot]!)) continue
          expect(Array.from(sight.visibleFrom(spot))).toEqual(visibleByBruteForce(grid, spot, rule))
          checked++
        }
        expect(checked).toBeGreaterThan(50)
      }
    })
  }
})

describe("the change in sight between two spots", () => {
  it("is what one sees and the other does not, each way, in reading order, for every step and some runs on maps/main.txt", () => {
    const grid = loadMap("main.txt")
    const sight = makeSight(grid)
    const spots = Array.from(grid.cells.keys()).filter((at) => isSpot(grid.cells[at]!))
    const without = (a: ArrayLike<number>, b: ArrayLike<number>) => {
      const taken = new Set(Array.from(b))
      return Array.from(a).filter((at) => !taken.has(at))
    }
    const neighbours = [-grid.cols - 1, -grid.cols, -grid.cols + 1, -1, 1, grid.cols - 1, grid.cols, grid.cols + 1]
    const wrong: Array<string> = []
    let pairs = 0
    for (const [i, from] of spots.entries()) {
      // Every neighbouring spot (a step), and a far one (a run's ends, or a swap's).
      const near = neighbours.map((offset) => from + offset).filter((to) => isSpot(grid.cells[to] ?? 0))
      for (const to of [...near, spots[(i * 7919) % spots.length]!]) {
        const { lost, gained } = sight.changeBetween(from, to)
        const expected = [without(sight.visibleFrom(from), sight.visibleFrom(to)), without(sight.visibleFrom(to), sight.visibleFrom(from))]
        if (JSON.stringify([Array.from(lost), Array.from(gained)]) !== JSON.stringify(expected)) wrong.push(`${from} -> ${to}`)
        pairs++
      }
    }
    expect(wrong).toEqual([])
    expect(pairs).toBeGreaterThan(1000)
  })
})
