import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { type MapError, mapProblems, mapText, parseMap, straightSteps } from "../src/core/map.js"
import { displayBytes, fitsInDatagram } from "../src/protocol/display.js"
import { mapsDir } from "./support.js"

const mainText = readFileSync(mapsDir + "main.txt", "utf8")
const mainLines = mainText.split("\n").slice(0, -1)

const parseOk = (text: string) => Either.getOrThrowWith(parseMap(text), (error) => new Error(error.message))
const parseError = (text: string): MapError => Either.getOrThrowWith(Either.flip(parseMap(text)), () => new Error("parsed"))

/** The example map with one gridpoint changed. */
const withChar = (row: number, col: number, ch: string) =>
  mainLines.map((line, r) => (r === row ? line.slice(0, col) + ch + line.slice(col + 1) : line)).join("\n") + "\n"

describe("parseMap", () => {
  it("reads the example map as 21 x 79", () => {
    const map = parseOk(mainText)
    expect([map.rows, map.cols]).toEqual([21, 79])
    expect(mapText(map)).toBe(mainText)
    expect(map.roomSpots.length).toBe(mainText.split("").filter((ch) => ch === ".").length)
  })

  it("accepts CRLF line ends and no trailing newline", () => {
    expect(mapText(parseOk(mainText.replaceAll("\n", "\r\n")))).toBe(mainText)
    expect(mapText(parseOk(mainText.slice(0, -1)))).toBe(mainText)
  })

  it("pads short lines with solid rock to the longest line", () => {
    const trimmed = mainLines.map((line) => line.trimEnd())
    const longest = Math.max(...trimmed.map((line) => line.length))
    const map = parseOk(trimmed.join("\n"))
    expect([map.rows, map.cols]).toEqual([21, longest])
    expect(mapText(map)).toBe(trimmed.map((line) => line.padEnd(longest) + "\n").join(""))
  })

  it("rejects an empty file", () => {
    expect(parseError("").reason).toBe("Empty")
    expect(parseError("\n").reason).toBe("Empty")
  })

  it("rejects a character outside ' -|+.#' and names its line and column", () => {
    const error = parseError(withChar(7, 20, "x"))
    expect(error).toMatchObject({ reason: "BadCharacter", row: 7, col: 20 })
    expect(error.message).toBe("line 8, column 21: 'x' is not a map character (one of \" -|+.#\")")
    expect(parseError(withChar(2, 3, "\t")).message).toContain("U+0009")
  })

  it("knows which grids fit in one DISPLAY datagram", () => {
    // 255 x 256: 255 * 257 + 8 = 65543 > 65507, while 254 x 256 fits.
    expect(fitsInDatagram(255, 256)).toBe(false)
    expect(fitsInDatagram(254, 256)).toBe(true)
    expect(displayBytes(254, 256)).toBe(254 * 257 + 8)
  })

  it("takes a map with few room spots, and refuses one with none", () => {
    const tiny = "+-----+\n|.....|\n|.....|\n+-----+\n"
    expect(parseOk(tiny).roomSpots.length).toBe(10)
    expect(mapProblems(parseOk(tiny)).map((problem) => problem._tag)).toEqual(["TooFewSpots"])
    expect(mapProblems(parseOk(tiny))[0]!.message).toContain("10 room spots")
    expect(parseError("+--+\n|##|\n+--+\n").reason).toBe("NoRoomSpot")
  })
})

describe("mapProblems", () => {
  /** Our maps break no rule, but for the one made to break two that a server still plays. */
  const expected: Readonly<Record<string, ReadonlyArray<string>>> = { "cramped.txt": ["TooFewSpots", "PassageAtCorner"] }
  for (const file of readdirSync(mapsDir).filter((name) => name.endsWith(".txt"))) {
    it(`finds in maps/${file} exactly the broken rules it has`, () => {
      expect(mapProblems(parseOk(readFileSync(mapsDir + file, "utf8"))).map((p) => p._tag)).toEqual(expected[file] ?? [])
    })
  }

  it("finds a room that is not closed: the gap in its wall, not the room spots beside it", () => {
    // Knock out part of the wall of the upper-left room.
    const problems = mapProblems(parseOk(withChar(1, 2, " ")))
    expect(problems.map((p) => p._tag)).toEqual(["WallGap"])
    expect(problems[0]).toMatchObject({ row: 1, col: 2 })
    expect(problems[0]!.message).toBe("line 2, column 3: a gap in a room's wall, solid rock beside a room spot '.' (room not closed)")
    // A corner knocked out is a gap too.
    expect(mapProblems(parseOk(withChar(0, 2, " "))).map((p) => [p._tag, "row" in p && p.row, "col" in p && p.col])).toEqual([["WallGap", 0, 2]])
    // A room on the grid's edge has no wall to have a gap in: the room spot is at fault.
    const edge = mapProblems(parseOk("+--+\n....\n|..|\n+--+\n"))
    expect(edge.filter((p) => p._tag !== "TooFewSpots").map((p) => [p._tag, "row" in p && p.row, "col" in p && p.col]))
      .toEqual([["RoomAtEdge", 1, 0], ["RoomAtEdge", 1, 3]])
  })

  it("finds a corner '+' that ends a passage and is no room's corner", () => {
    // The passage out of the upper-left room (line 3) ends in a '+' of its own.
    const text = readFileSync(mapsDir + "main.txt", "utf8").split("\n")
    text[2] = text[2]!.slice(0, 17) + "+" + text[2]!.slice(18)
    const problems = mapProblems(parseOk(text.join("\n")))
    expect(problems.map((p) => [p._tag, "row" in p && p.row, "col" in p && p.col])).toEqual([["StrayCorner", 2, 17]])
    expect(problems[0]!.message).toBe(
      "line 3, column 18: corner '+' at the end of a passage, the corner of no room (a passage meets a room through a gap in its wall)"
    )
  })

  it("finds a passage that meets a room at a corner", () => {
    // The passage leaving the upper-left room runs on into the room's corner.
    const problems = mapProblems(parseOk(withChar(4, 13, "#")))
    expect(problems.map((p) => p._tag)).toEqual(["PassageAtCorner"])
    expect(problems[0]!.message).toBe("line 5, column 14: passage '#' meets a room at a corner (it must interrupt a wall)")
  })

  it("finds parts of the map that cannot be reached", () => {
    // Wall up the door of the upper-middle room: it becomes a separate part.
    const problems = mapProblems(parseOk(withChar(3, 37, "-")))
    expect(problems.map((p) => p._tag)).toEqual(["MapDisconnected"])
    expect(problems[0]).toMatchObject({ row: 2, col: 32, components: 2 })
  })

  it("reports every broken rule, not only the first", () => {
    const text = withChar(1, 2, " ").split("\n")
    text[3] = text[3]!.slice(0, 37) + "-" + text[3]!.slice(38)
    const tags = new Set(mapProblems(parseOk(text.join("\n"))).map((p) => p._tag))
    expect(tags).toEqual(new Set(["WallGap", "MapDisconnected"]))
  })
})

describe("straightSteps: what a run passes through", () => {
  it("walks a row, a column or a diagonal, the end included; no other line", () => {
    expect(straightSteps(0, 3)).toEqual([[0, 1], [0, 2], [0, 3]])
    expect(straightSteps(-2, 0)).toEqual([[-1, 0], [-2, 0]])
    expect(straightSteps(2, -2)).toEqual([[1, -1], [2, -2]])
    expect(straightSteps(0, 0)).toEqual([])
    expect(straightSteps(1, 2)).toBeUndefined()
  })
})
