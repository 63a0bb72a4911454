// The client as a state machine, event by event (about 520 lines): one file, as every case feeds events through the same few helpers.
import { describe, expect, it } from "vitest"
import {
  type ClientEvent,
  type ClientState,
  type ClientUpdate,
  exitCode,
  joinMessage,
  type JoinRequest,
  receive,
  receiveGameOver,
  startClient,
  truncateName,
  withCollected
} from "../src/client/state.js"
import { Note } from "../src/client/status.js"
import { defaultTimings } from "../src/client/timings.js"
import { update } from "../src/client/update.js"
import { gridSize } from "../src/client/viewport.js"
import { screenLines, tooSmallLines } from "../src/client/screen.js"
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
/** A player with room to move: left and right are floor, up and down are walls. */
const roomy = "DISPLAY\n+---+\n|.@.|\n+---+\n"
const roaming = receiveAll(player, "OK A", "GRID 3 5", "GOLD 0 0 250", roomy)
/** The same, from a server known to answer Ctrl-L (it refused one): silence after a key that moves nothing means something. */
const answering = { ...roaming, answersAsks: true }
/** Ticks every 100 ms from `from` to `to`. */
const ticks = (from: number, to: number) => Array.from({ length: (to - from) / 100 + 1 }, (_, i) => [from + i * 100, tick] as const)

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

  it("sends PLAY again while nothing comes back, backing off (1, 2 s), then gives up after the answer timeout", () => {
    const updates = run(player, [600, tick], [999, tick], [1000, tick], [2000, tick], [2999, tick], [3000, tick], [4900, tick], [5000, tick])
    expect(updates.map((each) => each.send.length)).toEqual([0, 0, 1, 0, 0, 1, 0, 0])
    expect(sent(updates)).toEqual([{ _tag: "Play", name: "Alice" }, { _tag: "Play", name: "Alice" }])
    expect(updates.at(-1)!.state.exit).toEqual({ _tag: "NoServer", server: "localhost:4000", why: "no answer" })
    expect(exitCode(updates.at(-1)!.state.exit!)).toBe(1)
  })

  it("stops sending PLAY at the first answer of any kind; a closed port ends the wait at once", () => {
    for (const first of ["OK A", "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|@|\n", "garbage"]) {
      const updates = run(player, [10, { _tag: "Datagram", data: first }], [1000, tick], [3000, tick], [4000, tick])
      expect(sent(updates).filter((each) => each._tag === "Play"), first).toEqual([])
    }
    // Joined with no GOLD yet: nothing goes out, neither PLAY nor a key the user did not type.
    const answered = update(player, { _tag: "Datagram", data: "OK A" }, 10).state
    expect(sent(run(answered, ...ticks(100, 10_000)))).toEqual([])
    expect(sent(run(playing, ...ticks(100, 10_000)))).toEqual([])
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
      expect(state).toMatchObject({ note: undefined, exit: undefined })
      expect(state.report.view).toEqual(["+-+", "|@|"])
    }
  })

  it("sizes the screen by the DISPLAY itself until GRID comes", () => {
    expect(gridSize(receive(player, "DISPLAY\nab\ncd\nef\n"))).toEqual({ rows: 3, cols: 2 })
    expect(gridSize(player)).toBeUndefined()
  })

  // A KEY from an address it never let in crashes two of the CS50 servers.
  it("quits at once with Q or Ctrl-C while still joining, sending nothing", () => {
    for (const sequence of ["Q", "\u0003"]) {
      const quit = update(player, key(sequence), 100)
      expect(quit.send).toEqual([])
      expect(quit.state.exit?._tag).toBe("UserQuit")
    }
    expect(update(player, key("h"), 100).send).toEqual([])
  })
})

describe("messages during play", () => {
  it("keeps purse and unclaimed gold from GOLD, and notes gold received", () => {
    const rich = receive(playing, "GOLD 39 39 211")
    expect(rich.report).toMatchObject({ purse: 39, remaining: 211 })
    expect(rich.note).toEqual(Note.GoldReceived({ n: 39 }))
    expect(receive(playing, "GOLD 0 0 200").note).toBeUndefined()
  })

  it("shows the text of NO and ERROR as a note", () => {
    expect(receive(playing, "NO unknown keystroke").note).toEqual(Note.ServerSaid({ refusal: "No", text: "unknown keystroke" }))
    expect(receive(playing, "ERROR usage: unknown keystroke").note).toEqual(Note.ServerSaid({ refusal: "Error", text: "usage: unknown keystroke" }))
    expect(receive(playing, "NO").note).toEqual(Note.ServerSaid({ refusal: "No", text: "" }))
    expect(receive(playing, "NO").exit).toBeUndefined()
  })

  it("notes unknown and malformed messages and carries on", () => {
    const unknown = receive(playing, "HELLO there")
    expect(unknown.note).toMatchObject({ _tag: "BadMessage", kind: "unknown" })
    expect(unknown.exit).toBeUndefined()
    const malformed = receive(playing, "GOLD lots")
    expect(malformed.note).toMatchObject({ _tag: "BadMessage", kind: "malformed" })
    expect(malformed.report.purse).toBe(0)
    expect(receive(playing, "").note).toMatchObject({ _tag: "BadMessage", kind: "unknown" })
  })

  it("ends on a first GRID no map can have", () => {
    for (const grid of ["GRID x 3", "GRID 0 5", "GRID -2 5", "GRID 5", "GRID 1000 1000", "GRID"]) {
      const state = receive(player, grid)
      expect(state.exit?._tag, grid).toBe("BadGrid")
      expect(exitCode(state.exit!)).not.toBe(0)
    }
  })

  it("draws a DISPLAY of another size than GRID's at its own size; notes one whose rows are no grid, and keeps the last good view", () => {
    const larger = receive(playing, "DISPLAY\n+-+-\n|@|.\n")
    expect(larger.note).toBeUndefined()
    expect(larger.report.view).toEqual(["+-+-", "|@|."])
    expect(gridSize(larger)).toEqual({ rows: 2, cols: 4 })
    const wrong = receive(playing, "DISPLAY\n+-+-\n|@|\n")
    expect(wrong.note).toEqual(Note.BadDisplay({ reason: "the DISPLAY grid's rows differ in length" }))
    expect(wrong.report.view).toEqual(["+-+", "|@|"])
  })

  it("a transposed GRID: the window asked for is the DISPLAY's once it comes", () => {
    const grid = receiveAll(player, "GRID 79 21", "OK A", "GOLD 0 0 250")
    expect(gridSize(grid)).toEqual({ rows: 79, cols: 21 })
    const rows = Array.from({ length: 21 }, (_, row) => (row === 1 ? "@" : ".").padEnd(79, "."))
    const shown = receive(grid, "DISPLAY\n" + rows.map((row) => row + "\n").join(""))
    expect(gridSize(shown)).toEqual({ rows: 21, cols: 79 })
    expect(screenLines(shown)[2]).toContain("@")
  })

  it("ends on QUIT and on GAMEOVER in both dialects", () => {
    expect(receive(playing, "QUIT Thanks for playing!").exit).toEqual({ _tag: "Quit", reason: "Thanks for playing!" })
    expect(receive(playing, "GAMEOVER\nA 10 Alice\n").exit).toEqual({ _tag: "GameOver", summary: "A 10 Alice\n", you: "A" })
    expect(receive(playing, "QUIT GAME OVER:\nA 10 Alice\n").exit).toEqual({ _tag: "GameOver", summary: "A 10 Alice\n", you: "A" })
    expect(exitCode(receive(playing, "QUIT").exit!)).toBe(0)
  })

  it("ends with the standings themselves when they are at hand (a replay): nothing to word and read back", () => {
    const standings = [{ letter: "A", purse: 10, name: " Alice " }, { letter: "B", purse: 240, name: "Bob" }]
    const over = receiveGameOver(playing, standings)
    expect(over.exit).toEqual({ _tag: "GameOver", summary: standings, you: "A" })
    expect(over.report.latest).toBe("GameOver")
    expect(exitCode(over.exit!)).toBe(0)
    // The end already came: later ones change nothing, as with datagrams.
    expect(receiveGameOver(over, []).exit).toEqual(over.exit)
    expect(receive(over, "GAMEOVER\nA 1 x\n").exit).toEqual(over.exit)
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
    expect(moved.state.note).toBeUndefined()
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
    expect(f1.state.note).toEqual(Note.UnknownKey())
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

  it("quits on Ctrl-C, Ctrl-D and end of input as on Q, waiting for QUIT; a second one, or a hangup, leaves at once", () => {
    const events = [[key("\u0003"), "interrupt"], [key("\u0004"), "end of input"], [{ _tag: "EndOfInput" }, "end of input"]] as const
    for (const [event, how] of events) {
      const quit = update(playing, event, 1)
      expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
      expect(quit.state.exit).toBeUndefined()
      // The user's word, not the server's, ends it: the farewell says the user left.
      expect(receive(quit.state, "QUIT Thanks for playing!").exit).toEqual({ _tag: "UserQuit", how })
      expect(run(quit.state, [3000, tick]).at(-1)!.state.exit).toEqual({ _tag: "UserQuit", how })
      const again = update(quit.state, event, 2)
      expect(again.send).toEqual([])
      expect(again.state.exit?._tag).toBe("UserQuit")
      expect(exitCode(again.state.exit!)).toBe(0)
    }
    const hangup = update(playing, { _tag: "Hangup" }, 1)
    expect(hangup.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(hangup.state.exit).toEqual({ _tag: "UserQuit", how: "hangup" })
  })

  it("a player sends Q again until QUIT comes (a lost Q must not leave a ghost); the spectator only once", () => {
    const asked = update(playing, key("Q"), 1000)
    const updates = run(asked.state, [1300, tick], [1400, tick], [1700, tick], [1800, tick], [2200, tick], [2999, tick], [3000, tick])
    expect(updates.map((each) => each.send.length)).toEqual([0, 1, 0, 1, 1, 1, 0])
    expect(updates.at(-1)!.state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
    expect(receive(updates[2]!.state, "QUIT Thanks for playing!").exit?._tag).toBe("Quit")
    // A server that has let us go and has no QUIT to say again: our Q went through.
    expect(receive(updates[2]!.state, "ERROR Please start PLAY or SPECTATE first.").exit).toEqual({ _tag: "UserQuit", how: "interrupt" })
    const watching = receiveAll(spectator, "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|.|\n")
    const left = update(watching, key("Q"), 1000)
    expect(left.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(sent(run(left.state, [1500, tick], [2000, tick], [2500, tick]))).toEqual([])
  })

  it("sends no key but Q while the window is too small, which the screen says in place of the status line", () => {
    const small = { ...playing, window: { columns: 2, rows: 24 } }
    const blocked = update(small, key("h"), 1)
    expect(blocked.send).toEqual([])
    const says = tooSmallLines(small.window, { columns: 3, rows: 3 })
    expect(screenLines(blocked.state).slice(0, says.length).map((line) => line.trimEnd())).toEqual(says)
    // No note: it could only be seen once the window is big enough again, and would be false then.
    const enlarged = update(blocked.state, { _tag: "Resize", window }, 2).state
    expect(screenLines(enlarged)[0]!.trimEnd()).toBe("Player A has 0 nuggets (250 nuggets unclaimed).")
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

describe("only what the user typed, and a server that stops answering", () => {
  it("a player or the spectator that types nothing sends nothing, however long the server is silent, and says nothing of it", () => {
    const watching = receiveAll(spectator, "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|A|\n")
    for (const idle of [playing, roaming, watching, receive(player, "OK A")]) {
      const updates = run(idle, ...ticks(100, 60_000))
      expect(sent(updates)).toEqual([])
      expect(updates.every((each) => each.state.alert === undefined && !each.state.serverSilent)).toBe(true)
    }
  })

  it("a move with no DISPLAY after it sends nothing more: the user's next key, or the next change in sight, brings the view", () => {
    const updates = run(roaming, [1000, key("l")], ...ticks(1100, 2900))
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "l" }])
    const again = update(updates.at(-1)!.state, key("l"), 3000)
    expect(again.send).toEqual([{ _tag: "Key", key: "l" }])
    expect(receive(again.state, "DISPLAY\n+---+\n|..@|\n+---+\n").report.position).toEqual({ row: 1, col: 3 })
  })

  it("a move into a wall, or from where the view does not show us, expects no answer: no alarm", () => {
    for (const [state, sequence] of [[roaming, "k"], [playing, "l"], [receive(roaming, "DISPLAY\n+---+\n|.*.|\n+---+\n"), "l"]] as const) {
      const updates = run(state, [1000, key(sequence)], [1600, tick], [4000, tick], [4100, tick])
      expect(sent(updates)).toEqual([{ _tag: "Key", key: sequence }])
      expect(updates.map((each) => each.state.alert)).toEqual([undefined, undefined, undefined, undefined])
    }
  })

  it("Ctrl-L typed is sent at once, and hides the NO of a server that does not know the key", () => {
    const asked = update(playing, key("\f"), 1)
    expect(asked.send).toEqual([{ _tag: "Key", key: "\f" }])
    expect(receive(asked.state, "NO unknown keystroke").note).toBeUndefined()
    expect(receive(receive(asked.state, "NO unknown keystroke"), "NO unknown keystroke").note).toEqual(Note.ServerSaid({ refusal: "No", text: "unknown keystroke" }))
  })

  it("a refusal long after a Ctrl-L that went unanswered (a server silent to keys it does not know) is shown: it answers a key the user typed", () => {
    const asked = update(playing, key("\f"), 1000).state
    const typed = update(asked, key("z"), 9000).state
    const refused = update(typed, { _tag: "Datagram", data: "NO no such key: z" }, 9010).state
    expect(refused.note).toEqual(Note.ServerSaid({ refusal: "No", text: "no such key: z" }))
    // Soon after the Ctrl-L, the same refusal is still taken for its answer...
    expect(update(asked, { _tag: "Datagram", data: "NO unknown keystroke" }, 1010).state.note).toBeUndefined()
    // ...unless the user typed a key meanwhile: then it may be that key's, and is shown.
    const typedSoon = update(asked, key("z"), 1005).state
    expect(update(typedSoon, { _tag: "Datagram", data: "NO no such key: z" }, 1010).state.note).toEqual(Note.ServerSaid({ refusal: "No", text: "no such key: z" }))
  })

  it("a Ctrl-L typed after another key, with nothing heard between (a slow answer on a busy machine): the refusal that comes is the key's, and is shown", () => {
    const updates = run(playing, [9000, key("x")], [9100, key("\f")])
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "x" }, { _tag: "Key", key: "\f" }])
    const refused = update(updates.at(-1)!.state, { _tag: "Datagram", data: "NO unknown keystroke" }, 9200).state
    expect(refused.note).toEqual(Note.ServerSaid({ refusal: "No", text: "unknown keystroke" }))
  })

  it("learns from the answer to a Ctrl-L the user typed whether silence after a key that moves nothing means something", () => {
    const asked = update(roaming, key("\f"), 100).state
    // Our server's answer (OK, a GOLD that changes nothing), or a refusal, teaches it; another's move does not.
    for (const answer of ["OK A", "GOLD 0 0 250", "ERROR unknown keystroke"]) {
      expect(update(asked, { _tag: "Datagram", data: answer }, 150).state.answersAsks, answer).toBe(true)
    }
    for (const other of [roomy, "GOLD 0 0 240"]) {
      expect(update(asked, { _tag: "Datagram", data: other }, 150).state.answersAsks, other).toBe(false)
    }
    // Nor does a datagram long after it.
    expect(update(asked, { _tag: "Datagram", data: "GOLD 0 0 250" }, 5000).state.answersAsks).toBe(false)
  })

  it("never says a healthy server is not answering because it answers no Ctrl-L: silence after one means nothing from a server that never answered one", () => {
    const updates = run(roaming, [1000, key("\f")], ...ticks(1100, 10_000), [10_050, key("\f")], ...ticks(10_100, 20_000))
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "\f" }, { _tag: "Key", key: "\f" }])
    expect(updates.every((each) => each.state.alert === undefined && !each.state.serverSilent)).toBe(true)
  })

  it("says the server is not answering when a move gets no answer for a few seconds, or another key one that answers them; then Q leaves at once", () => {
    // A key that moves nothing, to a server that answers nothing that moves nothing: no alarm.
    expect(run(roaming, [1000, key("x")], [3900, tick], [4000, tick]).at(-1)!.state.alert).toBeUndefined()
    expect(run(answering, [1000, key("x")], [3900, tick], [4000, tick]).at(-1)!.state.alert).toEqual(Note.NotAnswering())
    const updates = run(roaming, [1000, key("l")], [3900, tick], [4000, tick])
    expect(updates[1]!.state.serverSilent).toBe(false)
    const silent = updates.at(-1)!.state
    expect(silent.serverSilent).toBe(true)
    expect(silent.alert).toEqual(Note.NotAnswering())
    // Nothing is sent of the client's own accord meanwhile.
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "l" }])
    // It stays, whatever keys are pressed, until the server is heard again.
    const keys = run({ ...silent, window: { columns: 120, rows: 24 } }, [4050, key("l")], [4060, key("x")], [4070, key("?")], [4080, key("?")])
    expect(screenLines(keys.at(-1)!.state)[0]).toContain("the server is not answering")
    const quit = update(silent, key("Q"), 4100)
    expect(quit.send).toEqual([{ _tag: "Key", key: "Q" }])
    expect(quit.state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
    // Any word from the server, and it is answering again.
    const back = receive(silent, "GOLD 0 0 250")
    expect(back.serverSilent).toBe(false)
    expect(back.alert).toBeUndefined()
  })

  it("notices at once a server whose port closed", () => {
    const gone = update(playing, { _tag: "Unreachable" }, 5).state
    expect(gone.serverSilent).toBe(true)
    expect(gone.alert).toEqual(Note.PortClosed())
    expect(update(gone, key("Q"), 6).state.exit).toEqual({ _tag: "UserQuit", how: "no answer" })
  })
})

describe("a lost GAMEOVER", () => {
  it("no nuggets left and no GAMEOVER: nothing is sent until the user types a key, which the server (still there for a while) answers with it", () => {
    const allTaken = receive(playing, "GOLD 3 3 0")
    const updates = run(allTaken, ...ticks(100, 5000), [5050, key("h")])
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "h" }])
    expect(receive(updates.at(-1)!.state, "GAMEOVER\nA 3 Alice\n").exit?._tag).toBe("GameOver")
  })
})

describe("the status line, once what it says is known", () => {
  const status = (state: ClientState) => screenLines(state)[0]!.trimEnd()
  const view = "DISPLAY\n+-+\n|@|\n"

  it("a DISPLAY before OK, GRID and GOLD: the view is drawn, the status line blank until the letter and the nuggets left have come", () => {
    const steps = [view, "OK A", "GRID 2 3", "GOLD 0 0 250"]
    const shown = steps.map((_, index) => status(receiveAll(player, ...steps.slice(0, index + 1))))
    expect(shown).toEqual(["", "", "", "Player A has 0 nuggets (250 nuggets unclaimed)."])
    expect(screenLines(receive(player, view))[2]!.trimEnd()).toBe("|@|")
    const watching = ["DISPLAY\n+-+\n|A|\n", "GRID 2 3", "GOLD 0 0 250"]
    expect(watching.map((_, index) => status(receiveAll(spectator, ...watching.slice(0, index + 1))))).toEqual(["", "", "Spectator: 250 nuggets unclaimed."])
  })

  it("a player whose OK was lost: once a DISPLAY follows its GOLD, the status line shows with its letter unknown", () => {
    expect(status(receiveAll(player, "GRID 2 3", "GOLD 0 0 250"))).toBe("")
    expect(status(receiveAll(player, "GRID 2 3", "GOLD 0 0 250", view))).toBe("Player ? has 0 nuggets (250 nuggets unclaimed).")
  })
})

describe("joining a server that makes a new player for every PLAY", () => {
  const datagram = (data: string): ClientEvent => ({ _tag: "Datagram", data })

  it("350 ms each way: one PLAY, answered after 700 ms", () => {
    const updates = run(player, ...ticks(100, 600), [700, datagram("OK A")], [701, datagram("GRID 2 3")],
      [702, datagram("GOLD 0 0 250")], [703, datagram("DISPLAY\n+-+\n|@|\n")], ...ticks(800, 6000))
    expect(sent(updates).filter((each) => each._tag === "Play")).toEqual([])
    expect(updates.at(-1)!.state.report.letter).toBe("A")
    expect(updates.at(-1)!.state.roundTrip).toBe(700)
  })

  it("the first OK lost: the view without it is played as it is; nothing goes out but the user's keys, and its Ctrl-L asks our server for the letter", () => {
    const updates = run(player, [5, datagram("GRID 2 3")], [6, datagram("GOLD 0 0 250")],
      [7, datagram("DISPLAY\n+-+\n|@|\n")], ...ticks(100, 3000), [3050, key("l")])
    expect(sent(updates)).toEqual([{ _tag: "Key", key: "l" }])
    expect(updates.at(-1)!.state.report).toMatchObject({ letter: undefined, joined: true, view: ["+-+", "|@|"] })
    // The user's Ctrl-L: our server answers it with OK.
    const asked = update(updates.at(-1)!.state, key("\f"), 3100)
    expect(asked.send).toEqual([{ _tag: "Key", key: "\f" }])
    expect(receive(asked.state, "OK B").report.letter).toBe("B")
    // At the end its line of the standings is found by its name.
    const over = receive(updates.at(-1)!.state, "QUIT GAME OVER:\nA 100 Bob\nB 150 Alice\n")
    expect(over.exit).toMatchObject({ _tag: "GameOver", you: "B" })
  })
})

describe("a player the server no longer knows (its address changed)", () => {
  it("says so, sends no keys, and joins again as a new player on Enter", () => {
    for (const refusal of ["NO you have not joined this game; send PLAY name or SPECTATE first", "ERROR Please start PLAY or SPECTATE first."]) {
      const asked = update(playing, key("l"), 100).state
      const forgotten = update(asked, { _tag: "Datagram", data: refusal }, 110).state
      expect(forgotten.alert).toEqual(Note.AddressChanged())
      expect(update(forgotten, key("h"), 200).send).toEqual([])
      expect(sent(run(forgotten, [1000, tick], [9000, tick]))).toEqual([])
      expect(update(forgotten, key("h"), 200).state.alert).toBe(forgotten.alert)
      const again = update(forgotten, key("\r"), 300)
      expect(again.send).toEqual([{ _tag: "Play", name: "Alice" }])
      expect(again.state.report).toMatchObject({ joined: false, letter: undefined, forgotten: false })
      expect(receiveAll(again.state, "OK C", "GRID 2 3").report.letter).toBe("C")
      const left = update(forgotten, key("Q"), 300)
      expect(left).toMatchObject({ send: [], state: { exit: { _tag: "UserQuit" } } })
    }
  })
})

describe("a reordered GOLD", () => {
  it("an older GOLD, with more nuggets left, is ignored: no theft invented in the classic game", () => {
    const collected = receiveAll(playing, "GOLD 12 12 238")
    const stale = receive(collected, "GOLD 0 0 245")
    expect(stale.report).toMatchObject({ purse: 12, remaining: 238 })
    expect(stale.note).toEqual(Note.GoldReceived({ n: 12 }))
    expect(receive(stale, "GOLD 0 12 230").report).toMatchObject({ purse: 12, remaining: 230 })
  })
})

describe("round two: the host's keys, the spectator's keys, a stale warning", () => {
  const hosting = update(playing, { _tag: "Friends", count: 2 }, 0).state

  it("with friends in the game, Q asks once; Q again leaves; any other key takes the question back", () => {
    const asked = update(hosting, key("Q"), 1)
    expect(asked.send).toEqual([])
    expect(asked.state.note).toEqual(Note.QuitAsksAgain())
    expect(update(asked.state, key("Q"), 2).send).toEqual([{ _tag: "Key", key: "Q" }])
    const changed = update(asked.state, key("h"), 2)
    expect(update(changed.state, key("Q"), 3).send).toEqual([])
    // Alone, Q leaves at once.
    expect(update(playing, key("Q"), 1).send).toEqual([{ _tag: "Key", key: "Q" }])
  })

  it("with friends in the game, Ctrl-Z says why it does not suspend", () => {
    expect(update(hosting, key("\u001a"), 1).state.note).toEqual(Note.NoSuspendWithFriends())
    expect(update(playing, key("\u001a"), 1).state.note).toBeUndefined()
  })

  it("the spectator's move keys are not sent: the whole map is in view", () => {
    const watching = receiveAll(spectator, "GRID 2 3", "GOLD 0 0 250", "DISPLAY\n+-+\n|.|\n")
    const moved = update(watching, key("h"), 1)
    expect(moved.send).toEqual([])
    expect(moved.state.note).toEqual(Note.SpectatorWatches())
    expect(update(watching, key("Q"), 1).send).toEqual([{ _tag: "Key", key: "Q" }])
  })

  it("the warning that the server is not answering goes as soon as it answers again", () => {
    const pressed = update(roaming, key("h"), 100).state
    const silent = update(pressed, tick, 100 + defaultTimings.silence).state
    expect(silent.alert).toEqual(Note.NotAnswering())
    const back = receive(silent, roomy)
    expect(back.alert).toBeUndefined()
    expect(back.serverSilent).toBe(false)
  })

  it("a player who leaves is told what it collected; the spectator is not", () => {
    const rich = receive(playing, "GOLD 7 7 243")
    const quit = receive(rich, "QUIT Thanks for playing!")
    expect(withCollected(quit.exit!, quit)).toEqual({ _tag: "Quit", reason: "Thanks for playing!", you: "A", collected: 7 })
    expect(withCollected({ _tag: "UserQuit", how: "interrupt" }, rich)).toEqual({ _tag: "UserQuit", how: "interrupt", you: "A", collected: 7 })
    const watching = receiveAll(spectator, "GRID 2 3", "GOLD 0 0 250")
    expect(withCollected({ _tag: "Quit", reason: "Thanks for watching!" }, watching)).toEqual({ _tag: "Quit", reason: "Thanks for watching!" })
  })
})
