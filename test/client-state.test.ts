import { describe, expect, it } from "vitest"
import {
  type ClientEvent,
  type ClientState,
  type ClientUpdate,
  defaultTimings,
  exitCode,
  gridSize,
  joinMessage,
  type JoinRequest,
  receive,
  startClient,
  truncateName,
  update
} from "../src/client/state.js"
import { MaxNameLength } from "../src/core/constants.js"

const window = { columns: 80, rows: 24 }
const start = (request: JoinRequest) => startClient(request, "localhost:4000", window, 0).state
const player = start({ _tag: "Player", name: "Alice" })
const spectator = start({ _tag: "Spectator" })

const receiveAll = (state: ClientState, ...texts: ReadonlyArray<string>) => texts.reduce((s, text) => receive(s, text), state)
const key = (sequence: string): ClientEvent => ({ _tag: "Key", sequence })
const tick: ClientEvent = { _tag: "Tick" }

/** Feeds the events in turn, each at its time, and returns every update. */
const run = (state: ClientState, ...timed: ReadonlyArray<readonly [number, ClientEvent]>): Array<ClientUpdate> => {
  const updates: Array<ClientUpdate> = []
  for (const [at, event] of timed) {
    const next = update(updates.at(-1)?.state ?? state, event, at)
    updates.push(next)
  }
  return updates
}
const sent = (updates: ReadonlyArray<ClientUpdate>) => updates.flatMap((each) => each.send)

const playing = receiveAll(player, "OK A", "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|@|\n")

describe("joining", () => {
  it("sends PLAY with the name cut to MaxNameLength characters, or SPECTATE", () => {
    const long = "x".repeat(MaxNameLength + 10)
    expect(startClient({ _tag: "Player", name: long }, "h:1", window, 0).send).toEqual([
      { _tag: "Play", name: "x".repeat(MaxNameLength) }
    ])
    expect(joinMessage({ _tag: "Player", name: "Bob" })).toEqual({ _tag: "Play", name: "Bob" })
    expect(joinMessage({ _tag: "Spectator" })).toEqual({ _tag: "Spectate" })
  })

  it("counts characters, not UTF-16 units, when cutting a name", () => {
    const name = "😀".repeat(MaxNameLength + 1)
    expect(Array.from(truncateName(name))).toHaveLength(MaxNameLength)
  })

  it("sends PLAY again until the server answers, then gives up after the answer timeout", () => {
    const updates = run(player, [300, tick], [600, tick], [700, tick], [1200, tick], [4900, tick], [5000, tick])
    expect(sent(updates)).toEqual([
      { _tag: "Play", name: "Alice" },
      { _tag: "Play", name: "Alice" },
      { _tag: "Play", name: "Alice" }
    ])
    expect(updates.at(-1)!.state.exit).toEqual({ _tag: "NoServer", server: "localhost:4000", why: "no answer" })
    expect(exitCode(updates.at(-1)!.state.exit!)).toBe(1)
  })

  it("stops asking once answered; a closed port ends the wait at once", () => {
    const answered = receive(player, "OK A")
    expect(sent(run(answered, [700, tick], [1400, tick]))).toEqual([
      // Joined, but GRID/GOLD are still missing: the same PLAY brings them again.
      { _tag: "Play", name: "Alice" },
      { _tag: "Play", name: "Alice" }
    ])
    expect(sent(run(playing, [700, tick], [1400, tick], [9000, tick]))).toEqual([])
    expect(update(player, { _tag: "Unreachable" }, 10).state.exit)
      .toEqual({ _tag: "NoServer", server: "localhost:4000", why: "port unreachable" })
  })

  it("takes NO before OK as a refusal, with the reason, in both dialects", () => {
    const refused = receive(player, "NO Sorry - the game is full")
    expect(refused.exit).toEqual({ _tag: "Refused", reason: "Sorry - the game is full" })
    expect(exitCode(refused.exit!)).not.toBe(0)
    expect(receive(player, "ERROR full").exit?._tag).toBe("Refused")
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

  it("quits at once with Q or Ctrl-C while still joining, telling the server in case it let us in", () => {
    for (const sequence of ["Q", "\u0003"]) {
      const quit = update(player, key(sequence), 100)
      expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
      expect(quit.state.exit?._tag).toBe("UserQuit")
    }
    expect(update(player, key("h"), 100).send).toEqual([])
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

  it("ends on a first GRID no map can have", () => {
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
  })

  it("ends on QUIT and on GAMEOVER in both dialects", () => {
    expect(receive(playing, "QUIT Thanks for playing!").exit).toEqual({ _tag: "Quit", reason: "Thanks for playing!" })
    expect(receive(playing, "GAMEOVER\nA 10 Alice\n").exit).toEqual({ _tag: "GameOver", summary: "A 10 Alice\n", you: "A" })
    expect(receive(playing, "QUIT GAME OVER:\nA 10 Alice\n").exit).toEqual({ _tag: "GameOver", summary: "A 10 Alice\n", you: "A" })
    expect(exitCode(receive(playing, "QUIT").exit!)).toBe(0)
  })

  it("ignores OK for a spectator", () => {
    expect(receive(spectator, "OK B").report.letter).toBeUndefined()
  })
})

describe("keys", () => {
  it("sends every single keystroke as KEY k and clears the note", () => {
    const noted = receive(playing, "GOLD 5 5 245")
    const moved = update(noted, key("h"), 1)
    expect(moved.send).toEqual([{ _tag: "Key", key: "h" }])
    expect(moved.state.note).toBe("")
    expect(update(playing, key("\r"), 1).send).toEqual([{ _tag: "Key", key: "\r" }])
    expect(update(playing, key("é"), 1).send).toEqual([{ _tag: "Key", key: "é" }])
  })

  it("moves with the arrow keys as with hjkl", () => {
    const arrows = ["\u001b[A", "\u001b[B", "\u001b[C", "\u001b[D", "\u001bOA"]
    expect(arrows.map((arrow) => update(playing, key(arrow), 1).send)).toEqual(
      ["k", "j", "l", "h", "k"].map((k) => [{ _tag: "Key", key: k }])
    )
  })

  it("notes other escape sequences as unknown keystrokes and sends nothing", () => {
    const f1 = update(playing, key("\u001bOP"), 1)
    expect(f1.send).toEqual([])
    expect(f1.state.note).toBe("unknown keystroke")
  })

  it("sends Q once and leaves the quitting to the server, or leaves after the QUIT timeout", () => {
    const first = update(playing, key("Q"), 100)
    expect(first.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(first.state.exit).toBeUndefined()
    expect(update(first.state, key("Q"), 200).send).toEqual([])
    expect(update(first.state, { _tag: "EndOfInput" }, 200).send).toEqual([])
    expect(update(first.state, tick, 100 + defaultTimings.quitTimeout - 1).state.exit).toBeUndefined()
    expect(update(first.state, tick, 100 + defaultTimings.quitTimeout).state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
  })

  it("quits on Ctrl-C, Ctrl-D, end of input and hangup, sending KEY Q", () => {
    const events: ReadonlyArray<ClientEvent> = [key("\u0003"), key("\u0004"), { _tag: "EndOfInput" }, { _tag: "Hangup" }]
    for (const event of events) {
      const quit = update(playing, event, 1)
      expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
      expect(quit.state.exit?._tag).toBe("UserQuit")
      expect(exitCode(quit.state.exit!)).toBe(0)
    }
  })

  it("sends no key but Q while the window is too small, and says so", () => {
    const small = { ...playing, window: { columns: 2, rows: 24 } }
    const blocked = update(small, key("h"), 1)
    expect(blocked.send).toEqual([])
    expect(blocked.state.note).toMatch(/too small/)
    expect(update(small, key("Q"), 1).send).toEqual([{ _tag: "Key", key: "Q" }])
    // NC columns are enough: the spec's window is NR+1 by NC.
    expect(update({ ...playing, window: { columns: 3, rows: 3 } }, key("h"), 1).send).toEqual([{ _tag: "Key", key: "h" }])
  })

  it("does nothing once the session has ended", () => {
    const over = receive(playing, "QUIT bye")
    expect(update(over, key("h"), 1)).toEqual({ state: over, send: [] })
    expect(update(over, { _tag: "Datagram", data: "GOLD 1 1 1" }, 1).state).toBe(over)
  })
})

describe("a lost view, and a server that stops answering", () => {
  it("a move with no DISPLAY after it asks for the view again with Ctrl-L, once", () => {
    const updates = run(playing, [1000, key("l")], [1300, tick], [1500, tick], [1600, tick], [1900, tick])
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "l" }, { _tag: "Key", key: "\f" }])
    const answered = run(playing, [1000, key("l")], [1100, { _tag: "Datagram", data: "DISPLAY\n+-+\n|@|\n" }], [1600, tick])
    expect(sent(answered)).toEqual([{ _tag: "Key", key: "l" }])
  })

  it("Ctrl-L asks at once, and hides the NO of a server that does not know the key", () => {
    const asked = update(playing, key("\f"), 1)
    expect(asked.send).toEqual([{ _tag: "Key", key: "\f" }])
    expect(receive(asked.state, "NO unknown keystroke").note).toBe("")
    expect(receive(receive(asked.state, "NO unknown keystroke"), "NO unknown keystroke").note).toBe("unknown keystroke")
  })

  it("says the server is not answering when a key gets no answer for a few seconds; then Q leaves at once", () => {
    const updates = run(playing, [1000, key("x")], [3900, tick], [4000, tick])
    expect(updates[1]!.state.serverSilent).toBe(false)
    const silent = updates.at(-1)!.state
    expect(silent.serverSilent).toBe(true)
    expect(silent.note).toBe("the server is not answering; Q leaves at once")
    const quit = update(silent, key("Q"), 4100)
    expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(quit.state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
    // Any word from the server, and it is answering again.
    expect(receive(silent, "GOLD 0 0 250").serverSilent).toBe(false)
  })

  it("notices at once a server whose port closed", () => {
    const gone = update(playing, { _tag: "Unreachable" }, 5).state
    expect(gone.serverSilent).toBe(true)
    expect(gone.note).toMatch(/port unreachable/)
    expect(update(gone, key("Q"), 6).state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
  })
})

describe("a lost GAMEOVER", () => {
  it("no nuggets left and no GAMEOVER: asks the server (still there for a while) until the end comes", () => {
    const allTaken = receive(playing, "GOLD 3 3 0")
    const updates = run(allTaken, [100, tick], [600, tick], [1200, tick])
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "\f" }, { _tag: "Key", key: "\f" }])
    expect(receive(updates.at(-1)!.state, "GAMEOVER\nA 3 Alice\n").exit?._tag).toBe("GameOver")
  })
})
