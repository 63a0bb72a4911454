import { cursorTo, eraseScreen } from "ansi-escapes"
import { describe, expect, it } from "vitest"
import { farewell, fit, frameDiff, sanitize, screenLines, statusLine } from "../src/client/screen.js"
import { type ClientState, type JoinRequest, receive, startClient } from "../src/client/state.js"

const receiveAll = (state: ClientState, ...texts: ReadonlyArray<string>) => texts.reduce((s, text) => receive(s, text), state)
const initialState = (request: JoinRequest) => startClient(request, "localhost:4000", { columns: 80, rows: 24 }, 0).state
/** The screen in a window of this size. */
const screenIn = (state: ClientState, window: { readonly columns: number; readonly rows: number }) =>
  screenLines({ ...state, window })

const grid = ["+---+", "|.@*|", "+---+"]
const display = `DISPLAY\n${grid.join("\n")}\n`
const player = receiveAll(initialState({ _tag: "Player", name: "Alice" }), "OK A", "GRID 3 5", "GOLD 39 39 211", display)
const spectator = receiveAll(initialState({ _tag: "Spectator" }), "GRID 3 5", "GOLD 0 0 211", display)

const trimmed = (lines: ReadonlyArray<string>) => lines.map((line) => line.trimEnd())

describe("status line", () => {
  it("reads exactly as the spec shows", () => {
    expect(statusLine(receive(player, "GOLD 0 39 211"))).toBe("Player A has 39 nuggets (211 nuggets unclaimed).")
    expect(statusLine(spectator)).toBe("Spectator: 211 nuggets unclaimed.")
  })

  it("puts a note two spaces to the right, and the next key clears it", () => {
    expect(screenIn(player, { columns: 80, rows: 5 })[0]!.trimEnd())
      .toBe("Player A has 39 nuggets (211 nuggets unclaimed).  GOLD received: 39")
    const noted = receive(player, "NO unknown keystroke")
    expect(screenIn(noted, { columns: 80, rows: 5 })[0]!.trimEnd())
      .toBe("Player A has 39 nuggets (211 nuggets unclaimed).  unknown keystroke")
  })

  it("cuts long notes to the screen width", () => {
    const noted = receive(player, `NO ${"x".repeat(500)}`)
    const lines = screenIn(noted, { columns: 60, rows: 5 })
    expect(lines[0]).toHaveLength(60)
  })
})

describe("screen", () => {
  it("shows the status line, then the latest DISPLAY, then blanks, all exactly the window's size", () => {
    const lines = screenIn(spectator, { columns: 10, rows: 6 })
    expect(lines).toEqual([
      "Spectator:",
      "+---+     ",
      "|.@*|     ",
      "+---+     ",
      "          ",
      "          "
    ])
  })

  it("fits a window of exactly NR+1 rows by NC columns, as the spec asks", () => {
    expect(trimmed(screenIn(spectator, { columns: 5, rows: 4 })).slice(1)).toEqual(grid)
  })

  it("asks for a bigger window, saying how big, when the grid does not fit", () => {
    const big = receiveAll(initialState({ _tag: "Spectator" }), "GRID 21 79")
    for (const size of [{ columns: 78, rows: 30 }, { columns: 100, rows: 21 }, { columns: 20, rows: 20 }]) {
      expect(trimmed(screenIn(big, size)).join(" ")).toMatch(/too small.*79 columns wide and 22 rows tall/)
    }
    expect(trimmed(screenIn(big, { columns: 79, rows: 22 }))[0]).toMatch(/^Spectator/)
  })

  it("says it in short when the full message does not fit", () => {
    expect(trimmed(screenIn(spectator, { columns: 40, rows: 2 })))
      .toEqual(["Too small: need 5x4, have 40x2", ""])
    expect(trimmed(screenIn(spectator, { columns: 4, rows: 3 }))).toEqual(["Too", "smal", "need"])
  })

  it("wraps the small-window message to fit a narrow window", () => {
    const wide = receiveAll(initialState({ _tag: "Spectator" }), "GRID 21 79")
    const text = trimmed(screenIn(wide, { columns: 30, rows: 12 })).join(" ")
    expect(text).toMatch(/79 columns wide and 22 rows tall; it is 30 x 12\./)
  })

  it("keeps drawing the last good view when a DISPLAY disagrees with GRID", () => {
    const good = receive(spectator, "DISPLAY\n+---+\n|.*.|\n+---+\n")
    const odd = receive(good, "DISPLAY\n+-----+\n|.|\n")
    const lines = screenIn(odd, { columns: 8, rows: 5 })
    expect(lines.slice(1)).toEqual(["+---+   ", "|.*.|   ", "+---+   ", "        "])
    expect(odd.note).toBe("the DISPLAY grid's rows differ in length")
  })

  it("never shows control characters or non-ASCII from the network", () => {
    const hostile = receiveAll(spectator, "DISPLAY\n+\u001b[2J\n|\u0007.\u00e9|\n+---+\n", "NO \u001b]0;owned\u0007")
    for (const line of screenIn(hostile, { columns: 80, rows: 5 })) {
      expect(line).toMatch(/^[\x20-\x7e]*$/)
    }
    expect(screenIn(hostile, { columns: 80, rows: 5 })[1]!.trimEnd()).toBe("+?[2J")
  })

  it("shows the status line alone while the grid is still on its way", () => {
    const early = receive(initialState({ _tag: "Player", name: "Alice" }), "OK C")
    expect(trimmed(screenIn(early, { columns: 60, rows: 3 })))
      .toEqual(["Player C has 0 nuggets (? nuggets unclaimed).", "", ""])
  })
})

describe("sanitize and fit", () => {
  it("replaces anything outside printable ASCII by ?", () => {
    expect(sanitize("a\tb\u0000c\u007fd\u00e9\u{1f600}~ ")).toBe("a?b?c?d??~ ")
    expect(fit("abcdef", 3)).toBe("abc")
    expect(fit("a", 3)).toBe("a  ")
  })
})

describe("frameDiff", () => {
  it("draws everything on a clear screen the first time, skipping blanks", () => {
    expect(frameDiff(undefined, ["ab ", "   "])).toBe(cursorTo(0, 0) + eraseScreen + cursorTo(0, 0) + "ab")
  })

  it("writes only the changed span of changed lines", () => {
    expect(frameDiff(["abcd", "efgh"], ["abcd", "eXYh"])).toBe(cursorTo(1, 1) + "XY")
    expect(frameDiff(["abcd", "efgh"], ["abcd", "efgh"])).toBe("")
  })

  it("redraws everything when the window size changed", () => {
    expect(frameDiff(["ab"], ["ab", "cd"])).toBe(cursorTo(0, 0) + eraseScreen + cursorTo(0, 0) + "ab" + cursorTo(0, 1) + "cd")
    expect(frameDiff(["ab"], ["abc"])).toContain(eraseScreen)
  })
})

describe("farewell", () => {
  it("prints the QUIT reason, or the game-over summary under a heading", () => {
    expect(farewell({ _tag: "Quit", reason: "Thanks for playing!" }, 80)).toBe("Thanks for playing!")
    expect(farewell({ _tag: "GameOver", summary: "A    39 Alice\nB   211 Bob\n" }, 80))
      .toBe("GAME OVER:\nA    39 Alice\nB   211 Bob")
    expect(farewell({ _tag: "UserQuit", how: "interrupt" }, 80)).toBe("")
    expect(farewell({ _tag: "UserQuit", how: "no answer" }, 80)).toBe("The server did not answer; left anyway.")
  })

  it("keeps control characters from the server off the terminal, and cuts long lines", () => {
    const text = farewell({ _tag: "GameOver", summary: "A 1 \u001b[31mEve\u001b[0m\r\nB 2 " + "x".repeat(200) }, 40)
    expect(text).toMatch(/^[\x20-\x7e\n]*$/)
    expect(text.split("\n").every((line) => line.length <= 40)).toBe(true)
    expect(text.split("\n")[1]).toBe("A 1 ?[31mEve?[0m")
  })
})
