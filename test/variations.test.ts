import { describe, expect, it } from "vitest"
import { type GameReport, newReport, readDatagram } from "../src/protocol/reader.js"
import { refusals, variations } from "../src/protocol/variations.js"

const joined = ["OK A", "GRID 3 5", "GOLD 0 0 250"].reduce(readDatagram, newReport("player"))
const readAll = (start: GameReport, datagrams: ReadonlyArray<string>) => datagrams.reduce(readDatagram, start)
/** What a report knows of the game, leaving out the bookkeeping of the latest message. */
const known = ({ ending, grid, joined, letter, position, purse, remaining, view }: GameReport) =>
  ({ ending, grid, joined, letter, position, purse, remaining, view })

describe("variations our readers accept", () => {
  it.each(variations.map((each) => [each.rule, each] as const))("%s", (_, variation) => {
    const start = variation.start === "new" ? newReport("player") : joined
    const read = readAll(start, variation.example)
    expect(known(read)).toEqual(known(readAll(start, variation.means)))
    // Each one changes something: a variation that reads as nothing would pass vacuously.
    expect({ ...known(read), note: read.note }).not.toEqual({ ...known(start), note: start.note })
    if (variation.note !== undefined) expect(read.note).toEqual(variation.note)
  })
})

describe("what our readers refuse", () => {
  const seen = readDatagram(joined, "DISPLAY\n+---+\n|@.*|\n+---+\n")
  it.each(refusals.map((each) => [each.rule, each] as const))("%s", (_, refusal) => {
    const read = readDatagram(seen, refusal.example)
    expect(read.note).toEqual(refusal.note)
    expect(known(read)).toEqual(known(seen))
  })
})
