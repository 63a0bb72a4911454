// The screen, drawn case by case (about 385 lines): one file, as every case draws through the same screenIn helper.
import { cursorTo, eraseScreen } from "ansi-escapes"
import { describe, expect, it } from "vitest"
import { frameDiff } from "../src/client/paint.js"
import { browserArrow, keyHelp, spectatorKeyHelp, terminalArrow } from "../src/client/keymap.js"
import { farewell, fit, gameOverScreen, helpBox, sanitize, screen, screenLines, statusBar } from "../src/client/screen.js"
import { rankedSummary } from "../src/client/standings.js"
import { nuggetsLeftAt } from "../src/protocol/endings.js"
import { byPlace } from "../src/protocol/summary.js"
import { type ClientState, type JoinRequest, leave, receive, startClient } from "../src/client/state.js"
import { Note, noteForms, noteText, statusLine } from "../src/client/status.js"
import { update } from "../src/client/update.js"

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
    expect(statusLine(receive(player, "GOLD 0 39 211").report)).toBe("Player A has 39 nuggets (211 nuggets unclaimed).")
    expect(statusLine(spectator.report)).toBe("Spectator: 211 nuggets unclaimed.")
  })

  it("says it is leaving in characters every terminal shows (no '?' for a non-ASCII one)", () => {
    const leaving = leave(player, "end of input", 0, true).state
    expect(screenLines(leaving)[0]!.trimEnd()).toMatch(/  leaving\.\.\.$/)
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
      "211 left  ",
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
    const big = receiveAll(initialState({ _tag: "Spectator" }), "GRID 21 79", "GOLD 0 0 250")
    for (const size of [{ columns: 78, rows: 30 }, { columns: 100, rows: 21 }, { columns: 20, rows: 20 }]) {
      expect(trimmed(screenIn(big, size)).join(" ")).toMatch(/too small.*79 columns wide and 22 rows tall/)
    }
    expect(trimmed(screenIn(big, { columns: 79, rows: 22 }))[0]).toMatch(/^Spectator/)
  })

  it("says it in short when the full message does not fit", () => {
    expect(trimmed(screenIn(spectator, { columns: 40, rows: 2 })))
      .toEqual(["Too small: need 5x4, have 40x2; S", "scrolls"])
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
    expect(odd.note).toEqual(Note.BadDisplay({ reason: "the DISPLAY grid's rows differ in length" }))
  })

  it("never shows control characters or non-ASCII from the network", () => {
    const hostile = receiveAll(spectator, "DISPLAY\n+\u001b[2J\n|\u0007.\u00e9|\n+---+\n", "NO \u001b]0;owned\u0007")
    for (const line of screenIn(hostile, { columns: 80, rows: 5 })) {
      expect(line).toMatch(/^[\x20-\x7e]*$/)
    }
    expect(screenIn(hostile, { columns: 80, rows: 5 })[1]!.trimEnd()).toBe("+?[2J")
  })

  it("shows the status line alone while the grid is still on its way, once what it says is known", () => {
    const early = receive(initialState({ _tag: "Player", name: "Alice" }), "OK C")
    expect(trimmed(screenIn(early, { columns: 60, rows: 3 }))).toEqual(["", "", ""])
    expect(trimmed(screenIn(receive(early, "GOLD 0 0 250"), { columns: 60, rows: 3 })))
      .toEqual(["Player C has 0 nuggets (250 nuggets unclaimed).", "", ""])
  })
})

describe("sanitize and fit", () => {
  it("replaces anything outside printable ASCII by ?", () => {
    expect(sanitize("a\tb\u0000c\u007fd\u00e9\u{1f600}~ ")).toBe("a?b?c?d??~ ")
    expect(fit("abcdef", 3)).toBe("abc")
    expect(fit("a", 3)).toBe("a  ")
  })
})

const plain = (...texts: ReadonlyArray<string>) => texts.map((text) => ({ text, styles: " ".repeat(text.length) }))

describe("frameDiff", () => {
  it("draws everything on a clear screen the first time, skipping blanks", () => {
    expect(frameDiff(undefined, plain("ab ", "   "), false)).toBe(cursorTo(0, 0) + eraseScreen + cursorTo(0, 0) + "ab")
  })

  it("writes only the changed span of changed lines", () => {
    expect(frameDiff(plain("abcd", "efgh"), plain("abcd", "eXYh"), false)).toBe(cursorTo(1, 1) + "XY")
    expect(frameDiff(plain("abcd", "efgh"), plain("abcd", "efgh"), false)).toBe("")
  })

  it("redraws everything when the window size changed", () => {
    expect(frameDiff(plain("ab"), plain("ab", "cd"), false))
      .toBe(cursorTo(0, 0) + eraseScreen + cursorTo(0, 0) + "ab" + cursorTo(0, 1) + "cd")
    expect(frameDiff(plain("ab"), plain("abc"), false)).toContain(eraseScreen)
  })

  it("in colour, sets each style where it starts and resets at the end; a change of style alone is redrawn", () => {
    const next = [{ text: "@*.", styles: "@gf" }]
    expect(frameDiff(plain("   "), next, true)).toBe(
      cursorTo(0, 0) + "\u001b[0;1;7m@\u001b[0;1;33m*\u001b[0;2m.\u001b[0m"
    )
    expect(frameDiff([{ text: "@*.", styles: "   " }], next, false)).toBe("")
    expect(frameDiff([{ text: "@*.", styles: "   " }], next, true)).not.toBe("")
  })
})

describe("colour, status line, help and game-over screens", () => {
  it("styles the grid: walls, floor, passages, gold, you and the others", () => {
    const styles = screen({ ...player, window: { columns: 10, rows: 4 } })[2]!.styles
    expect(styles.slice(0, 5)).toBe("wf@gw")
    const others = receive(player, "DISPLAY\n+-#-+\n|B@*|\n+---+\n")
    expect(screen({ ...others, window: { columns: 5, rows: 4 } }).slice(1, 3).map((line) => line.styles))
      .toEqual(["wwpww", "wo@gw"])
  })

  it("keeps the spec's words whole: shorter forms in narrow windows, the note shortened first", () => {
    const spec = "Player A has 39 nuggets (211 nuggets unclaimed)."
    expect(statusBar(player, 80).text.trimEnd()).toBe(`${spec}  GOLD received: 39`)
    // Notes too use fewer words rather than being cut.
    expect(statusBar(player, 61).text.trimEnd()).toBe(`${spec}  +39 nuggets`)
    expect(statusBar(player, 60).text.trimEnd()).toBe(`${spec}  +39`)
    expect(statusBar(player, 48).text.trimEnd()).toBe("Player A: 39 nuggets, 211 unclaimed.  +39")
    expect(statusBar({ ...player, note: undefined }, 48).text.trimEnd()).toBe(spec)
    expect(statusBar(player, 47).text.trimEnd()).toBe("Player A: 39 nuggets, 211 unclaimed.  +39")
    for (const width of [20, 30, 40, 50, 60, 70]) expect(statusBar(player, width).text, `${width}`).not.toContain("...")
    expect(statusBar(player, 40).text.trimEnd()).toBe("A: 39, 211 left  GOLD received: 39")
    expect(statusBar({ ...player, note: undefined }, 40).text.trimEnd()).toBe("Player A: 39 nuggets, 211 unclaimed.")
    expect(statusBar(player, 20).text.trimEnd()).toBe("A: 39, 211 left  +39")
    expect(statusBar(player, 19).text.trimEnd()).toBe("A 39/211  +39")
    expect(statusBar(player, 12).text.trimEnd()).toBe("A 39/211")
    const hinted = { ...player, note: undefined, hint: ["friends join with: nuggets join host 4000 NAME", "port 4000"] }
    expect(statusBar(hinted, 100).text.trimEnd()).toBe(`${spec}  friends join with: nuggets join host 4000 NAME`)
    expect(statusBar(hinted, 100).styles).toContain("h".repeat(10))
    expect(statusBar(hinted, 60).text.trimEnd()).toBe(`${spec}  port 4000`)
  })

  it("? opens the keys over the map; any key closes it, and sends nothing", () => {
    const opened = update(player, { _tag: "Key", sequence: "?" }, 1)
    expect(opened.send).toEqual([])
    const text = screenIn(opened.state, { columns: 80, rows: 20 }).join("\n")
    expect(text).toContain("Ctrl-L")
    expect(text).toContain("run that way as far as you can")
    const closed = update(opened.state, { _tag: "Key", sequence: "h" }, 2)
    expect(closed.send).toEqual([])
    expect(closed.state.helpOpen).toBe(false)
  })

  it("ranks the final standings by purse, marking the winner and you", () => {
    expect(rankedSummary("A    10 Alice\nB   200 Bob\nC    40 Cy\n", "C").map(([text]) => text)).toEqual([
      " 1. B 200 Bob  <- winner",
      " 2. C  40 Cy  <- you",
      " 3. A  10 Alice"
    ])
    // A summary in another form is shown as it came.
    expect(rankedSummary("everyone wins\n", "A")).toEqual([["everyone wins", " "]])
    // The standings themselves, as a replay has them: the same lines, names as the game kept them.
    const standings = [{ letter: "A", purse: 10, name: "Alice" }, { letter: "B", purse: 200, name: "Bob" }, { letter: "C", purse: 40, name: "Cy" }]
    expect(rankedSummary(standings, "C")).toEqual(rankedSummary("A    10 Alice\nB   200 Bob\nC    40 Cy\n", "C"))
    expect(rankedSummary([], "A")).toEqual([])
    expect(rankedSummary("", "A")).toEqual([])
    const over = gameOverScreen({ ...receive(player, "GOLD 0 39 0"), window: { columns: 80, rows: 20 } }, "A 39 Alice\nB 211 Bob\n")
    const text = over.map((line) => line.text).join("\n")
    expect(text).toContain("GAME OVER")
    expect(text).toContain(" 1. B 211 Bob  <- winner")
    expect(text).toContain(" 2. A  39 Alice  <- you")
  })

  it("a game that ended with nuggets on the map is stopped: no winner, and how many were left", () => {
    expect(rankedSummary("A    10 Alice\nB   200 Bob\n", "A", 40).map(([text]) => text)).toEqual([
      " 1. B 200 Bob",
      " 2. A  10 Alice  <- you",
      "No winner: 40 nuggets left on the map."
    ])
    expect(rankedSummary("A 0 Ada\nB 0 friend\n", "A", 250).map(([text]) => text)).toEqual([
      " 1. A 0 Ada  <- you",
      " 1. B 0 friend",
      "No winner: 250 nuggets left on the map."
    ])
    expect(rankedSummary("A 250 Ada\n", "A", 0).map(([text]) => text)).toEqual([" 1. A 250 Ada  <- winner, you"])
    // The nuggets left: the last GOLD's count, unless the summary's purses account for more of the 250 (a GOLD that never came).
    expect(nuggetsLeftAt("A 10 Ada\nB 0 Bo\n", 240)).toBe(240)
    expect(nuggetsLeftAt("A 200 Ada\nB 50 Bo\n", 12)).toBe(0)
    expect(nuggetsLeftAt("A 10 Ada\n", undefined)).toBe(240)
    expect(nuggetsLeftAt("everyone wins\n", 7)).toBe(7)
    expect(nuggetsLeftAt("everyone wins\n", undefined)).toBeUndefined()
    // Our player's state knows 211 nuggets are left: the server ended the game before the gold ran out.
    const stopped = gameOverScreen({ ...player, window: { columns: 80, rows: 20 } }, "A 39 Alice\nB 0 Bob\n").map((line) => line.text).join("\n")
    expect(stopped).toContain("GAME STOPPED")
    expect(stopped).not.toContain("<- winner")
    expect(stopped).toContain("No winner: 211 nuggets left on the map.")
    expect(farewell({ _tag: "GameOver", summary: "A 39 Alice\nB 0 Bob\n", you: "A", nuggetsLeft: 211 }, 80))
      .toBe("GAME STOPPED:\n 1. A 39 Alice  <- you\n 2. B  0 Bob\nNo winner: 211 nuggets left on the map.")
  })
})

describe("a map larger than the window", () => {
  const rows = Array.from({ length: 30 }, () => "|" + ".".repeat(98) + "|")
  rows[0] = rows[29] = "+" + "-".repeat(98) + "+"
  const big = (at: number) => {
    const view = rows.map((line, index) => (index === at ? line.slice(0, 50) + "@" + line.slice(51) : line))
    return `DISPLAY\n${view.join("\n")}\n`
  }
  const start = receiveAll(initialState({ _tag: "Player", name: "Alice" }), "OK A", "GRID 30 100", "GOLD 0 0 9", big(5))

  it("offers a scrolling view on the too-small screen; S takes it, and the view keeps the player in sight", () => {
    const small = { ...start, window: { columns: 40, rows: 12 } }
    expect(screenLines(small).join(" ").replace(/\s+/g, " ")).toMatch(/press S to play in a view that scrolls/)
    expect(update(small, { _tag: "Key", sequence: "l" }, 1).send).toEqual([])
    const scrolling = update(small, { _tag: "Key", sequence: "S" }, 1).state
    const shown = screenLines(scrolling)
    expect(shown[0]).toMatch(/^Player A: 0 nuggets, 9 unclaimed\./)
    expect(shown.slice(1).some((line) => line.includes("@"))).toBe(true)
    expect(update(scrolling, { _tag: "Key", sequence: "l" }, 2).send).toEqual([{ _tag: "Key", key: "l" }])
    // The player walks down: the view follows.
    const later = update(scrolling, { _tag: "Datagram", data: big(25) }, 3).state
    expect(screenLines(later).slice(1).some((line) => line.includes("@"))).toBe(true)
    expect(later.scroll!.top).toBeGreaterThan(scrolling.scroll!.top)
  })
})

describe("farewell", () => {
  it("prints the QUIT reason, or the game-over summary under a heading", () => {
    expect(farewell({ _tag: "Quit", reason: "Thanks for playing!" }, 80)).toBe("Thanks for playing!")
    // The server's words are a sentence of their own.
    expect(farewell({ _tag: "Quit", reason: "server shutting down", you: "A", collected: 9 }, 80)).toBe("Server shutting down. You collected 9 nuggets.")
    expect(farewell({ _tag: "Quit", reason: "server shutting down" }, 80)).toBe("Server shutting down.")
    expect(farewell({ _tag: "GameOver", summary: "A    39 Alice\nB   211 Bob\n", you: "A" }, 80))
      .toBe("GAME OVER:\n 1. B 211 Bob  <- winner\n 2. A  39 Alice  <- you")
    expect(farewell({ _tag: "UserQuit", how: "interrupt" }, 80)).toBe("You left the game.")
    expect(farewell({ _tag: "UserQuit", how: "end of input" }, 80)).toBe("End of input: you left the game.")
    expect(farewell({ _tag: "UserQuit", how: "no answer" }, 80)).toBe("The server did not answer; left anyway.")
  })

  it("keeps control characters from the server off the terminal, and cuts long lines", () => {
    const text = farewell({ _tag: "GameOver", summary: "A 1 \u001b[31mEve\u001b[0m\r\nB 2 " + "x".repeat(200) }, 40)
    expect(text).toMatch(/^[\x20-\x7e\n]*$/)
    expect(text.split("\n").every((line) => line.length <= 40)).toBe(true)
    expect(text.split("\n")[2]).toBe(" 2. A 1 ?[31mEve?[0m")
  })
})

describe("round two: ties, small words, the spectator, narrow windows", () => {
  it("equal purses share a rank, and every best purse is a winner", () => {
    expect(rankedSummary("A 50 Al\nB 10 Bo\nC 50 Cy\nD 10 Di\nE 5 Ed\n", "D").map(([text]) => text)).toEqual([
      " 1. A 50 Al  <- winner",
      " 1. C 50 Cy  <- winner",
      " 3. B 10 Bo",
      " 3. D 10 Di  <- you",
      " 5. E  5 Ed"
    ])
  })

  it("places by purse, ties sharing a place, for the terminal and the page alike", () => {
    const players = [{ letter: "B", purse: 10, cell: 3 }, { letter: "A", purse: 50, cell: 1 }, { letter: "C", purse: 50, cell: -1 }, { letter: "D", purse: 10, cell: 2 }, { letter: "E", purse: 5, cell: 0 }]
    expect(byPlace(players).map(({ letter, place }) => `${place}${letter}`)).toEqual(["1A", "1C", "3B", "3D", "5E"])
    expect(byPlace(players)[1]).toEqual({ letter: "C", purse: 50, cell: -1, place: 1 })
    expect(byPlace([])).toEqual([])
  })

  it("says what a player collected when it leaves, in the right number", () => {
    expect(farewell({ _tag: "Quit", reason: "Thanks for playing!", you: "A", collected: 42 }, 80))
      .toBe("Thanks for playing! You collected 42 nuggets.")
    expect(farewell({ _tag: "Quit", reason: "Thanks for playing!", you: "A", collected: 1 }, 80))
      .toBe("Thanks for playing! You collected 1 nugget.")
    expect(farewell({ _tag: "UserQuit", how: "interrupt", you: "B", collected: 0 }, 80)).toBe("You left the game. You collected 0 nuggets.")
    // The spectator collects nothing.
    expect(farewell({ _tag: "Quit", reason: "Thanks for watching!" }, 80)).toBe("Thanks for watching!")
  })

  it("each arrow stands for the same move key in the terminal and in the browser", () => {
    const terminal = ["\u001b[A", "\u001b[B", "\u001b[C", "\u001b[D"].map(terminalArrow)
    const application = ["\u001bOA", "\u001bOB", "\u001bOC", "\u001bOD"].map(terminalArrow)
    const browser = ["ArrowUp", "ArrowDown", "ArrowRight", "ArrowLeft"].map(browserArrow)
    expect(terminal).toEqual(["k", "j", "l", "h"])
    expect(application).toEqual(terminal)
    expect(browser).toEqual(terminal)
    expect(terminalArrow("k")).toBeUndefined()
    expect(browserArrow("k")).toBeUndefined()
  })

  it("the ? box keeps its frame and whole words in a narrow window", () => {
    for (const [state, keys] of [[player, keyHelp], [spectator, spectatorKeyHelp]] as const) {
      for (const columns of [30, 40, 60, 80]) {
        const box = helpBox(columns, keys).map((line) => line.text)
        for (const text of box) {
          expect(text.length, `${columns}: ${text}`).toBeLessThanOrEqual(columns)
          expect(text, `${columns}: ${text}`).toMatch(/^[|+].*[|+]$/)
        }
        const words = (text: string) => text.split(/[\s|+-]+/).filter(Boolean)
        expect(words(box.join(" ")), `${columns}`).toEqual(words(["Keys", ...keys.flat()].join(" ")))
        expect(screenIn(update(state, { _tag: "Key", sequence: "?" }, 1).state, { columns, rows: 30 }).join("\n"))
          .toContain(box[1]!)
      }
    }
  })

  it("the spectator's ? lists its own keys; its too-small text offers a view to watch in", () => {
    const text = screenIn(update(spectator, { _tag: "Key", sequence: "?" }, 1).state, { columns: 80, rows: 20 }).join("\n")
    expect(text).toContain("stop watching")
    expect(text).toContain("move the view")
    expect(text).not.toContain("run that way")
    const big = receiveAll(initialState({ _tag: "Spectator" }), "GRID 21 79")
    expect(trimmed(screenIn(big, { columns: 60, rows: 20 })).join(" ")).toMatch(/press S to watch in a view that scrolls/)
  })

  it("how friends join stays in full under the map when the window has rows to spare, else on the status line", () => {
    const hint = ["Friends join with: nuggets join 10.0.0.5 4000 NAME, or in a browser at http://10.0.0.5:8080/", "join: 10.0.0.5 4000", "port 4000"]
    const hinted = { ...player, note: undefined, hint }
    expect(trimmed(screenIn(hinted, { columns: 60, rows: 8 }))).toEqual([
      "Player A has 39 nuggets (211 nuggets unclaimed).",
      ...trimmed(screenIn(player, { columns: 60, rows: 8 })).slice(1, 4),
      "",
      "Friends join with: nuggets join 10.0.0.5 4000 NAME, or in a",
      "browser at http://10.0.0.5:8080/",
      ""
    ])
    // No row to spare: the status line has its shorter form.
    expect(trimmed(screenIn(hinted, { columns: 80, rows: 4 }))[0]).toBe("Player A has 39 nuggets (211 nuggets unclaimed).  join: 10.0.0.5 4000")
  })

  it("while the window is too small, the join line for friends stays in sight", () => {
    const big = { ...receiveAll(initialState({ _tag: "Player", name: "Al" }), "OK A", "GRID 21 79"), hint: ["friends join with: nuggets join 10.0.0.5 4000 NAME", "port 4000"] }
    const lines = trimmed(screenIn(big, { columns: 60, rows: 12 }))
    expect(lines).toContain("friends join with: nuggets join 10.0.0.5 4000 NAME")
    expect(lines.join(" ")).toMatch(/too small/)
  })

  /** One note of every kind: a kind added to `Note` and not here fails to compile. */
  const everyNote: { readonly [Tag in Note["_tag"]]: Extract<Note, { readonly _tag: Tag }> } = {
    GoldReceived: Note.GoldReceived({ n: 14 }),
    YouTook: Note.YouTook({ n: 3, from: ["B"] }),
    TakenFromYou: Note.TakenFromYou({ n: 5 }),
    TookFromYou: Note.TookFromYou({ by: "C", n: 1 }),
    NothingToTake: Note.NothingToTake({ other: "B" }),
    BadMessage: Note.BadMessage({ kind: "unknown", reason: "unknown message type \"HELLO\"" }),
    BadDisplay: Note.BadDisplay({ reason: "DISPLAY is 3x4, GRID said 3x5" }),
    GridChanged: Note.GridChanged({ rows: 4, cols: 9, firstRows: 3, firstCols: 9 }),
    ServerSaid: Note.ServerSaid({ refusal: "No", text: "Sorry - you must provide player's name." }),
    NotAnswering: Note.NotAnswering(),
    PortClosed: Note.PortClosed(),
    AddressChanged: Note.AddressChanged(),
    QuitAsksAgain: Note.QuitAsksAgain(),
    NoSuspendWithFriends: Note.NoSuspendWithFriends(),
    CannotSuspend: Note.CannotSuspend(),
    SpectatorWatches: Note.SpectatorWatches(),
    UnknownKey: Note.UnknownKey(),
    Leaving: Note.Leaving()
  }

  it("each note the client writes has a form in a few words", () => {
    for (const note of [everyNote.GoldReceived, everyNote.YouTook, everyNote.TakenFromYou, everyNote.TookFromYou, everyNote.NotAnswering, everyNote.QuitAsksAgain]) {
      const forms = noteForms(note)
      expect(forms[0]).toBe(noteText(note))
      expect(forms.at(-1)!.length, note._tag).toBeLessThanOrEqual(10)
    }
  })

  it("words each note longest first, each form shorter than the one before; only words from the server, and 'leaving...', have one form", () => {
    for (const note of Object.values(everyNote)) {
      const forms = noteForms(note)
      expect(forms.length, note._tag).toBeGreaterThan(0)
      forms.slice(1).forEach((form, i) => expect(form.length, `${note._tag}: ${form}`).toBeLessThan(forms[i]!.length))
      expect(forms.every((form) => form !== ""), note._tag).toBe(true)
    }
    const single = Object.values(everyNote).filter((note) => noteForms(note).length === 1).map((note) => note._tag)
    expect(single.sort()).toEqual(["BadDisplay", "BadMessage", "GridChanged", "Leaving", "NothingToTake", "ServerSaid"])
  })

  it("words the notes as the README and the tests in a terminal quote them", () => {
    expect(noteForms(everyNote.GoldReceived)).toEqual(["GOLD received: 14", "+14 nuggets", "+14"])
    expect(noteForms(everyNote.YouTook)).toEqual(["you took 3 nuggets from B", "took 3 from B", "+3"])
    expect(noteText(Note.YouTook({ n: 7, from: ["B", "C"] }))).toBe("you took 7 nuggets from B, C")
    expect(noteForms(everyNote.TakenFromYou)).toEqual(["5 nuggets taken from you", "lost 5", "-5"])
    expect(noteForms(everyNote.TookFromYou)).toEqual(["C took 1 nugget from you", "C took 1", "-1"])
    expect(noteText(everyNote.NothingToTake)).toBe("B had no nuggets to take")
    expect(noteText(everyNote.BadMessage)).toBe("unknown message from server: unknown message type \"HELLO\"")
    expect(noteText(everyNote.GridChanged)).toBe("GRID 4x9 differs from the first (3x9)")
    expect(noteText(everyNote.NotAnswering)).toBe("the server is not answering; Q leaves at once")
    expect(noteText(everyNote.AddressChanged))
      .toBe("your network address changed; the server no longer knows you. Enter: join again as a new player; Q: leave")
    expect(noteForms(everyNote.QuitAsksAgain).at(1)).toBe("Q again ends it for all")
    expect(noteForms(everyNote.SpectatorWatches).at(-1)).toBe("only watching")
    // A refusal says the server's words; with none, the refusal's own name.
    expect(noteText(everyNote.ServerSaid)).toBe("Sorry - you must provide player's name.")
    expect(noteText(Note.ServerSaid({ refusal: "No", text: "" }))).toBe("NO")
    expect(noteText(Note.ServerSaid({ refusal: "Error", text: "" }))).toBe("ERROR")
    // Our server's words for an unknown key are the client's own, and shorten alike.
    expect(noteForms(Note.ServerSaid({ refusal: "No", text: "unknown keystroke" }))).toEqual(noteForms(everyNote.UnknownKey))
  })
})
