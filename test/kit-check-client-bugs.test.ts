import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { failuresWith } from "./kit/checkClient.js"

/**
 * `check client` against a toy client written for these tests, wrong on purpose, one bug at
 * a time: that bug's check fails. (Apart from the runs that pass, so that the two halves run
 * side by side.)
 */

describe.concurrent("check client against a client with one bug: its check fails, saying what was sent, what came and the spec line", () => {
  it.live("join-player: play in lower case", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("join", "join-player")
      expect(failure).toMatchObject({ what: "the client did not send PLAY", got: `"play Alice"`, spec: { line: "87" } })
    }), 30_000)

  it.live("name-truncation: the whole name sent", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("truncate", "name-truncation")
      expect(failure).toMatchObject({ what: "given a name of 59 characters, the client should send its first 50; it sent 59", spec: { line: "83" } })
    }), 30_000)

  it.live("status-line: a status line in other words", () =>
    Effect.gen(function*() {
      const failures = yield* failuresWith("status", "status-line")
      expect(failures.map((failure) => failure.what)).toEqual([
        `the status line should read "Player A has 0 nuggets (250 nuggets unclaimed)."`,
        `the status line should read "Spectator: 250 nuggets unclaimed."`
      ])
      expect(failures[0]).toMatchObject({ got: `screen row 0: "Player A has 0 nuggets (250 nuggets unclaimed)!"`, spec: { line: "111" } })
    }), 30_000)

  it.live("map-drawn: the grid a row too low", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("map", "map-drawn")
      expect(failure).toMatchObject({ what: "the grid is drawn from row 2, column 0; the spec puts it right under the status line (row 1, column 0) (and 1 more like it)", spec: { line: "90" } })
    }), 30_000)

  it.live("keys: capitals sent as small letters", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("keys", "keys")
      expect(failure).toMatchObject({ what: "the key H typed was sent as something else (and 7 more like it)", sent: "the key H typed", got: `"KEY h"`, spec: { line: "354-356" } })
    }), 30_000)

  it.live("gold-received: GOLD ignored", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("gold", "gold-received")
      expect(failure).toMatchObject({ sent: `"GOLD 5 5 245"`, got: `screen row 0: "Player A has 0 nuggets (? nuggets unclaimed)."`, spec: { line: "115" } })
    }), 30_000)

  it.live("refusal-shown: a refusal's words kept from the player", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("refusal", "refusal-shown", { dialect: "2021" })
      expect(failure).toMatchObject({ what: "the refusal's text is not on the status line", sent: `"ERROR unknown keystroke"`, spec: { line: "430" } })
    }), 30_000)

  it.live("bad-message-note: a message it does not know ends it", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("note", "bad-message-note")
      expect(failure).toMatchObject({ what: "the client ended at a message it did not know", sent: `"HELLO there"`, spec: { line: "93" } })
    }), 30_000)

  it.live("quit: QUIT ignored, or the terminal left as the client had it", () =>
    Effect.gen(function*() {
      const [ignored] = yield* failuresWith("quit", "quit")
      expect(ignored).toMatchObject({ what: "the client did not exit within 5 s", sent: `"QUIT Thanks for playing!"`, spec: { line: "412-414" } })
      const messy = yield* failuresWith("restore", "quit")
      expect(messy[0]).toMatchObject({ what: "the client exited with status 137, not 0" })
      expect(messy[1]).toMatchObject({
        what: expect.stringMatching(
          /^the terminal was not restored: the terminal's modes \(stty -g\) changed from [0-9a-f:]+ to [0-9a-f:]+, the alternate screen still on, the cursor hidden$/
        ),
        spec: { line: "412-414" }
      })
    }), 60_000)

  it.live("game-over: no summary printed", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("summary", "game-over", { dialect: "2021" })
      expect(failure).toMatchObject({ what: "the summary is not printed: Alice, Bob, 10, 240 missing from the screen", sent: expect.stringMatching(/^"QUIT GAME OVER:\\n/), spec: { line: "422" } })
    }), 30_000)

  it.live("refused-join: QUIT Game is full ignored", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("quit", "refused-join", { dialect: "2021" })
      expect(failure).toMatchObject({ what: "the client did not exit within 5 s", sent: `"QUIT Game is full: no more players can join."`, spec: { line: "412-414" } })
    }), 30_000)

  it.live("small-window: the grid drawn cut, with no complaint", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("small", "small-window")
      expect(failure).toMatchObject({ what: "no complaint that the window is too small", spec: { line: "107" } })
    }), 30_000)

  it.live("awkward-input: a DISPLAY with no final newline ends it; n added to the purse instead of reading p", () =>
    Effect.gen(function*() {
      const crashed = yield* failuresWith("newline", "awkward-input")
      expect(crashed.at(-1)).toMatchObject({ what: "the client ended", spec: { line: "91" } })
      const added = yield* failuresWith("purse", "awkward-input")
      expect(added[0]!.what).toBe(`each message came twice; the status line should read "Player A has 3 nuggets (247 nuggets unclaimed)." and @ stand at row 3, column 10`)
    }), 60_000)
})
