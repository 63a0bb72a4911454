import { describe, expect, it } from "vitest"
import { MaxNameLength } from "../src/core/constants.js"
import {
  type ClientEvent,
  type ClientState,
  exitCode,
  gridSize,
  initialState,
  joinMessage,
  receive,
  truncateName,
  update
} from "../src/client/state.js"

const player = initialState({ _tag: "Player", name: "Alice" })
const spectator = initialState({ _tag: "Spectator" })

const receiveAll = (state: ClientState, ...texts: ReadonlyArray<string>) => texts.reduce(receive, state)

const key = (sequence: string): ClientEvent => ({ _tag: "Key", sequence })

const playing = receiveAll(player, "OK A", "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|@|\n")

describe("joining", () => {
  it("sends PLAY with the name cut to MaxNameLength characters, or SPECTATE", () => {
    const long = "x".repeat(MaxNameLength + 10)
    expect(joinMessage({ _tag: "Player", name: long })).toEqual({ _tag: "Play", name: "x".repeat(MaxNameLength) })
    expect(joinMessage({ _tag: "Player", name: "Bob" })).toEqual({ _tag: "Play", name: "Bob" })
    expect(joinMessage({ _tag: "Spectator" })).toEqual({ _tag: "Spectate" })
  })

  it("counts characters, not UTF-16 units, when cutting a name", () => {
    const name = "😀".repeat(MaxNameLength + 1)
    expect(Array.from(truncateName(name))).toHaveLength(MaxNameLength)
  })

  it("takes NO before OK as a refusal, with the reason", () => {
    const refused = receive(player, "NO Sorry - the game is full")
    expect(refused.exit).toEqual({ _tag: "Refused", reason: "Sorry - the game is full" })
    expect(exitCode(refused.exit!)).not.toBe(0)
    expect(receive(player, "ERROR full").exit?._tag).toBe("Refused")
    // The later CS50 form refuses with QUIT.
    expect(receive(player, "QUIT Game is full: no more players can join.").exit)
      .toEqual({ _tag: "Refused", reason: "Game is full: no more players can join." })
  })

  it("copes with OK, GRID, GOLD and DISPLAY in any order", () => {
    const orders = [
      ["OK A", "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|@|\n"],
      ["DISPLAY\n+-+\n|@|\n", "GOLD 0 0 250", "GRID 2 3", "OK A"],
      ["GOLD 0 0 250", "OK A", "DISPLAY\n+-+\n|@|\n", "GRID 2 3"]
    ]
    for (const order of orders) {
      const state = receiveAll(player, ...order)
      expect(state.report).toMatchObject({ letter: "A", grid: { rows: 2, cols: 3 }, remaining: 250 })
      expect(state).toMatchObject({ note: "", exit: undefined })
      expect(state.report.view).toEqual(["+-+", "|@|"])
    }
  })

  it("sizes the screen by the DISPLAY itself until GRID comes", () => {
    expect(gridSize(receive(player, "DISPLAY\nab\ncd\nef\n"))).toEqual({ rows: 3, cols: 2 })
    expect(gridSize(player)).toBeUndefined()
  })
})

describe("messages during play", () => {
  it("keeps purse and unclaimed gold from GOLD, and notes gold received", () => {
    const rich = receive(playing, "GOLD 39 39 211")
    expect(rich.report).toMatchObject({ purse: 39, remaining: 211 })
    expect(rich.note).toBe("GOLD received: 39")
    expect(receive(playing, "GOLD 0 0 200").note).toBe("")
  })

  it("shows the text of NO and ERROR as a note", () => {
    expect(receive(playing, "NO unknown keystroke").note).toBe("unknown keystroke")
    expect(receive(playing, "ERROR usage: unknown keystroke").note).toBe("usage: unknown keystroke")
    expect(receive(playing, "NO").note).toBe("NO")
    expect(receive(playing, "NO").exit).toBeUndefined()
  })

  it("notes unknown and malformed messages and carries on", () => {
    const unknown = receive(playing, "HELLO there")
    expect(unknown.note).toMatch(/^unknown message/)
    expect(unknown.exit).toBeUndefined()
    const malformed = receive(playing, "GOLD lots")
    expect(malformed.note).toMatch(/^malformed message/)
    expect(malformed.report.purse).toBe(0)
    expect(receive(playing, "").note).toMatch(/message/)
  })

  it("ends on a GRID no map can have", () => {
    for (const grid of ["GRID x 3", "GRID 0 5", "GRID -2 5", "GRID 5", "GRID 1000 1000", "GRID"]) {
      const state = receive(player, grid)
      expect(state.exit?._tag, grid).toBe("BadGrid")
      expect(exitCode(state.exit!)).not.toBe(0)
    }
  })

  it("notes a DISPLAY whose size differs from GRID, and keeps the last good view", () => {
    expect(receive(playing, "DISPLAY\n+-+\n").note).toBe("DISPLAY is 1x3, GRID said 2x3")
    const wrong = receive(playing, "DISPLAY\n+-+-\n|@|.\n")
    expect(wrong.note).toBe("DISPLAY is 2x4, GRID said 2x3")
    expect(wrong.report.view).toEqual(["+-+", "|@|"])
    expect(receive(playing, "DISPLAY\n+-+\n|.|\n").note).toBe("")
  })

  it("ends on QUIT and on GAMEOVER in both dialects", () => {
    expect(receive(playing, "QUIT Thanks for playing!").exit).toEqual({ _tag: "Quit", reason: "Thanks for playing!" })
    expect(receive(playing, "GAMEOVER\nA 10 Alice\n").exit).toEqual({ _tag: "GameOver", summary: "A 10 Alice\n" })
    expect(receive(playing, "QUIT GAME OVER:\nA 10 Alice\n").exit).toEqual({
      _tag: "GameOver",
      summary: "A 10 Alice\n"
    })
    expect(exitCode(receive(playing, "QUIT").exit!)).toBe(0)
  })

  it("ignores OK for a spectator", () => {
    expect(receive(spectator, "OK B").report.letter).toBeUndefined()
  })
})

describe("keys", () => {
  it("sends every single keystroke as KEY k and clears the note", () => {
    const noted = receive(playing, "GOLD 5 5 245")
    const moved = update(noted, key("h"))
    expect(moved.send).toEqual([{ _tag: "Key", key: "h" }])
    expect(moved.state.note).toBe("")
    expect(update(playing, key("\r")).send).toEqual([{ _tag: "Key", key: "\r" }])
    expect(update(playing, key("é")).send).toEqual([{ _tag: "Key", key: "é" }])
  })

  it("notes escape sequences as unknown keystrokes and sends nothing", () => {
    const arrow = update(playing, key("\u001b[B"))
    expect(arrow.send).toEqual([])
    expect(arrow.state.note).toBe("unknown keystroke")
  })

  it("sends Q once and leaves the quitting to the server", () => {
    const first = update(playing, key("Q"))
    expect(first.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(first.state.exit).toBeUndefined()
    expect(update(first.state, key("Q")).send).toEqual([])
    expect(update(first.state, { _tag: "EndOfInput" }).send).toEqual([])
  })

  it("quits on Ctrl-C, Ctrl-D, end of input and hangup, sending KEY Q", () => {
    const events: ReadonlyArray<ClientEvent> = [key("\u0003"), key("\u0004"), { _tag: "EndOfInput" }, { _tag: "Hangup" }]
    for (const event of events) {
      const quit = update(playing, event)
      expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
      expect(quit.state.exit?._tag).toBe("UserQuit")
      expect(exitCode(quit.state.exit!)).toBe(0)
    }
  })

  it("does nothing once the session has ended", () => {
    const over = receive(playing, "QUIT bye")
    expect(update(over, key("h"))).toEqual({ state: over, send: [] })
    expect(update(over, { _tag: "Datagram", data: "GOLD 1 1 1" }).state).toBe(over)
  })
})
