import { describe, expect, it } from "vitest"
import { ReaderNote } from "../src/protocol/notes.js"
import { type GameReport, newReport, readDatagram } from "../src/protocol/reader.js"

const readAll = (report: GameReport, ...datagrams: ReadonlyArray<string>) => datagrams.reduce(readDatagram, report)
const display = (...rows: ReadonlyArray<string>) => "DISPLAY\n" + rows.map((row) => row + "\n").join("")

const joined = readAll(newReport("player"), "OK A", "GRID 3 9", "GOLD 0 0 100")

describe("the client-side reader", () => {
  it("tells a refusal from a quit and a game over, in both dialects", () => {
    for (const refusal of ["NO Sorry - the game is full", "ERROR full", "QUIT Game is full: no more players can join."]) {
      expect(readDatagram(newReport("player"), refusal).ending?._tag, refusal).toBe("Refused")
    }
    expect(readDatagram(joined, "QUIT bye").ending).toEqual({ _tag: "Quit", reason: "bye" })
    expect(readDatagram(joined, "GAMEOVER\nA 1 x\n").ending).toEqual({ _tag: "GameOver", summary: "A 1 x\n" })
    expect(readDatagram(joined, "QUIT GAME OVER:\nA 1 x\n").ending).toEqual({ _tag: "GameOver", summary: "A 1 x\n" })
  })

  it("ends at a first GRID no terminal could show, but only notes a bad GRID once playing", () => {
    expect(readDatagram(newReport("player"), "GRID abc def").ending?._tag).toBe("BadGrid")
    const later = readDatagram(joined, "GRID abc def")
    expect(later.ending).toBeUndefined()
    expect(later.note).toMatchObject({ _tag: "BadMessage", kind: "malformed", reason: expect.stringMatching(/^bad GRID/) })
    expect(later.grid).toEqual({ rows: 3, cols: 9 })
    expect(readDatagram(joined, "GRID 4 9").note).toEqual(ReaderNote.GridChanged({ rows: 4, cols: 9, firstRows: 3, firstCols: 9 }))
  })

  it("keeps the latest good view and where the player stands in it", () => {
    const seen = readDatagram(joined, display("+-------+", "|..@..*.|", "+-------+"))
    expect(seen.view).toEqual(["+-------+", "|..@..*.|", "+-------+"])
    expect(seen.position).toEqual({ row: 1, col: 3 })
    const broken = readDatagram(seen, display("+-------+", "|.@.|", "+-------+"))
    expect(broken.view).toBe(seen.view)
    expect(broken.note).toEqual(ReaderNote.BadDisplay({ reason: "the DISPLAY grid's rows differ in length" }))
  })

  it("draws a DISPLAY at its own shape, whatever GRID said, and the grid is that shape from then on", () => {
    const small = readDatagram(joined, display("+-+", "|@|"))
    expect(small).toMatchObject({ view: ["+-+", "|@|"], grid: { rows: 2, cols: 3 }, gridSaid: { rows: 3, cols: 9 }, position: { row: 1, col: 1 } })
    expect(small.note).toBeUndefined()
    // GRID again, as it first said: no news, and the shape stays the DISPLAY's.
    expect(readDatagram(small, "GRID 3 9")).toMatchObject({ grid: { rows: 2, cols: 3 }, note: undefined })
    // Padding beyond GRID is cut only down to GRID's size: rows shorter than GRID's are the DISPLAY's own.
    const padded = readDatagram(joined, display("+-------+  ", "|..@..*.|  ", "+-------+  ", "           "))
    expect(padded.view).toEqual(["+-------+", "|..@..*.|", "+-------+"])
    const transposed = readAll(newReport("player"), "GRID 9 3", "OK A", display("+-------+", "|..@....|", "+-------+"))
    expect(transposed).toMatchObject({ grid: { rows: 3, cols: 9 }, position: { row: 1, col: 3 } })
    // Columns past a transposed GRID's width are not padding: the player sees the left part only.
    expect(readDatagram(transposed, display("+-+      ", "|@|      ", "+-+      ")).view).toEqual(["+-+      ", "|@|      ", "+-+      "])
  })

  it("ignores a DISPLAY larger than GRID by more than one either way round, keeping the last view; one larger each way, or transposed, is drawn", () => {
    const seen = readDatagram(joined, display("+-------+", "|..@..*.|", "+-------+"))
    const rows = (count: number, cols: number) => Array.from({ length: count }, (_, row) => (row === 1 ? "@" : ".").padEnd(cols, "."))
    for (const [count, cols] of [[801, 9], [3, 22], [5, 9], [4, 11], [11, 4]] as const) {
      const refused = readDatagram(seen, display(...rows(count, cols)))
      expect(refused.view, `${count}x${cols}`).toBe(seen.view)
      expect(refused.grid).toEqual({ rows: 3, cols: 9 })
      expect(refused.note).toEqual(ReaderNote.BadDisplay({ reason: `DISPLAY is ${count}x${cols}, GRID said 3x9` }))
    }
    for (const [count, cols] of [[4, 10], [10, 4], [9, 3], [2, 3]] as const) {
      const drawn = readDatagram(seen, display(...rows(count, cols)))
      expect(drawn.note, `${count}x${cols}`).toBeUndefined()
      expect(drawn.grid).toEqual({ rows: count, cols })
    }
    // Judged against GRID's words, not the view before: a small view does not make the next one too large.
    const small = readDatagram(joined, display(...rows(2, 3)))
    expect(readDatagram(small, display(...rows(4, 10))).grid).toEqual({ rows: 4, cols: 10 })
  })

  it("takes OK's letter as the player when no @ is drawn, and sees no position when neither is", () => {
    const lettered = readDatagram(joined, display("+-------+", "|..A..B.|", "+-------+"))
    expect(lettered).toMatchObject({ view: ["+-------+", "|..@..B.|", "+-------+"], position: { row: 1, col: 3 } })
    expect(readDatagram(joined, display("+-------+", "|..B..*.|", "+-------+")).position).toBeUndefined()
    // Two A's, or an @ besides: the @ is the player, and two letters say nothing.
    expect(readDatagram(joined, display("+-------+", "|..A..A.|", "+-------+")).position).toBeUndefined()
    expect(readDatagram(joined, display("+-------+", "|..A..@.|", "+-------+")).position).toEqual({ row: 1, col: 6 })
  })
})

describe("the steal variant, as the client reads it", () => {
  const before = readAll(joined, "GOLD 0 40 100", display("+-------+", "|..@B...|", "+-------+"))

  it("the thief: its gain comes with the victim standing where it was", () => {
    const after = readAll(before, "GOLD 4 44 100", display("+-------+", "|..B@...|", "+-------+"))
    expect(after.note).toEqual(ReaderNote.YouTook({ n: 4, from: ["B"] }))
    expect(after.purse).toBe(44)
  })

  it("the victim: its purse shrinks, and the thief stands where it was", () => {
    const victim = readAll(joined, "GOLD 0 40 100", display("+-------+", "|..C@...|", "+-------+"))
    const gold = readDatagram(victim, "GOLD 0 36 100")
    expect(gold.note).toEqual(ReaderNote.TakenFromYou({ n: 4 }))
    expect(readDatagram(gold, display("+-------+", "|..@C...|", "+-------+")).note).toEqual(ReaderNote.TookFromYou({ by: "C", n: 4 }))
    const one = readDatagram(victim, "GOLD 0 39 100")
    expect(one.note).toEqual(ReaderNote.TakenFromYou({ n: 1 }))
    expect(readDatagram(one, display("+-------+", "|..@C...|", "+-------+")).note).toEqual(ReaderNote.TookFromYou({ by: "C", n: 1 }))
  })

  it("a run through two players names both; gold seen on the way is just gold received", () => {
    const crowd = readAll(joined, display("+-------+", "|@B.C...|", "+-------+"))
    const after = readAll(crowd, "GOLD 7 7 100", display("+-------+", "|B.C...@|", "+-------+"))
    expect(after.note).toEqual(ReaderNote.YouTook({ n: 7, from: ["B", "C"] }))
    const goldOnTheWay = readAll(joined, display("+-------+", "|@B*....|", "+-------+"))
    const gold = readDatagram(goldOnTheWay, "GOLD 9 9 91")
    expect(gold.note).toEqual(ReaderNote.GoldReceived({ n: 9 }))
    // No claim of a theft: the DISPLAY adds nothing to read.
    expect(readDatagram(gold, display("+-------+", "|B.....@|", "+-------+")).note).toBeUndefined()
  })
})
