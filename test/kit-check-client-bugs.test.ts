import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { check, failing, failuresWith, toy } from "./kit/checkClient.js"

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

  it.live("status-line: a status line without the purse and the nuggets left", () =>
    Effect.gen(function*() {
      const failures = yield* failuresWith("statusgone", "status-line")
      expect(failures.map((failure) => failure.what)).toEqual([
        `the status line should read "Player A has 0 nuggets (250 nuggets unclaimed)."`,
        `the status line should read "Spectator: 250 nuggets unclaimed."`
      ])
      expect(failures[0]).toMatchObject({ got: `screen row 0: "Nuggets!"`, spec: { line: "111" } })
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

  it.live("gold-received: GOLD ignored, and a GOLD shown only with the next DISPLAY (sent alone, it is not shown)", () =>
    Effect.gen(function*() {
      for (const [bug, status] of [["gold", "Player A has 0 nuggets (? nuggets unclaimed)."], ["golddisplay", "Player A has 0 nuggets (250 nuggets unclaimed)."]]) {
        const [failure] = yield* failuresWith(bug!, "gold-received")
        expect(failure, bug).toMatchObject({
          what: "after GOLD 5 5 245 the status line does not show the purse of 5 and the 245 nuggets left",
          sent: "GOLD 5 5 245, alone",
          got: `screen row 0: "${status}"`,
          spec: { line: "91" }
        })
      }
    }), 60_000)

  it.live("status-line: the spectator shown a player's status line", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("spectatorstatus", "status-line")
      expect(failure).toMatchObject({
        what: `the spectator is shown a player's status line; the spec gives the spectator its own, "Spectator: 250 nuggets unclaimed."`,
        got: `screen row 0: "Player   has 0 nuggets (250 nuggets unclaimed)."`,
        spec: { line: "121" }
      })
    }), 30_000)

  it.live("refusal-shown: a refusal's words kept from the player", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("refusal", "refusal-shown", { dialect: "2021" })
      expect(failure).toMatchObject({ what: "the refusal's text is not on the status line", sent: `"ERROR no such key: z"`, spec: { line: "430" } })
    }), 30_000)

  it.live("refusal-shown: a note of its own for a key it does not know, the refusal's words kept from the player", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("ownnote", "refusal-shown")
      expect(failure).toMatchObject({ what: "the refusal's text is not on the status line", sent: `"NO no such key: z"`, got: expect.stringContaining("unknown keystroke") })
    }), 30_000)

  it.live("join-player: GRID read as columns, then rows: the client asks for a larger window than it needs, and the checks that build on it are not run", () =>
    Effect.gen(function*() {
      const report = yield* check([process.execPath, toy, "--bugs=gridswap"], { only: "status-line" })
      const [failure] = yield* failuresWith("gridswap", "join-player")
      expect(failure).toMatchObject({
        what: `in a window of 80 x 24, larger than GRID 6 32 needs (32 x 7), the client says it is too small: "Too small: need 6 x 33"; it asks for 33 rows: it seems to read GRID's numbers as columns, then rows`,
        spec: { line: "88" }
      })
      expect(report.checks.map((each) => [each.name, each.status, each.notRun])).toEqual([
        ["join-player", "fail", undefined],
        ["join-spectator", "fail", undefined],
        ["status-line", "not run", "it builds on join-player, which failed"]
      ])
    }), 60_000)

  it.live("bad-message-note: a message it does not know ends it", () =>
    Effect.gen(function*() {
      const [failure] = yield* failuresWith("note", "bad-message-note")
      expect(failure).toMatchObject({ what: "the client ended at a message it did not know", sent: `"HELLO there"`, spec: { line: "93" } })
    }), 30_000)

  it.live("quit: QUIT ignored", () =>
    Effect.gen(function*() {
      const [ignored] = yield* failuresWith("quit", "quit")
      expect(ignored).toMatchObject({ what: "the client did not exit within 5 s", sent: `"QUIT Thanks for playing!"`, spec: { line: "412-414" } })
    }), 60_000)

  it.live("quit: the terminal left as the client had it", () =>
    Effect.gen(function*() {
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

  it.live("status-line and gold-received: other words than the spec's examples warn, and do not fail", () =>
    Effect.gen(function*() {
      const report = yield* check([process.execPath, toy, "--bugs=status"], { only: "status-line" })
      expect(report.checks[0]).toMatchObject({ status: "warn", failures: [] })
      expect(report.checks[0]!.warnings.map((warning) => warning.what)).toEqual([
        `the status line says it in other words than the spec's example, "Player A has 0 nuggets (250 nuggets unclaimed)."`,
        `the status line says it in other words than the spec's example, "Spectator: 250 nuggets unclaimed."`
      ])
    }), 60_000)

  it.live("no longer wrong: a client that says the window is too small in its own words and waits for the space bar, and one whose words wrap mid-word over two rows", () =>
    Effect.gen(function*() {
      const small = yield* check([process.execPath, toy, "--bugs=smallspace"], { only: "small-window" })
      expect(small.checks[0]).toMatchObject({ status: "pass", notes: ["it drew the game once the space bar was pressed"] })
      const wrapped = yield* check([process.execPath, toy, "--bugs=wraps"], { only: "small-window" })
      expect(wrapped.checks[0]).toMatchObject({ status: "pass", failures: [] })
    }), 60_000)

  it.live("no longer wrong: a grid a row lower (a blank row under the status line) is found by its content, where map-drawn does not judge", () =>
    Effect.gen(function*() {
      for (const only of ["small-window", "awkward-input"] as const) {
        const report = yield* check([process.execPath, toy, "--bugs=map"], { only })
        expect(report.checks[0], only).toMatchObject({ status: "pass", failures: [] })
      }
    }), 60_000)

  it.live("no longer wrong: a status line in words of its own passes awkward-input, judged by what it means", () =>
    Effect.gen(function*() {
      const report = yield* check([process.execPath, toy, "--bugs=words"], { only: "awkward-input" })
      expect(report.checks[0]).toMatchObject({ status: "pass", failures: [] })
    }), 60_000)

  it.live("no longer wrong: a client that shows the summary at the game over and waits for a key", () =>
    Effect.gen(function*() {
      const report = yield* check([process.execPath, toy, "--bugs=waitskey"], { only: "game-over" })
      expect(report.checks[0]).toMatchObject({ status: "pass", failures: [], notes: ["it showed the summary and went on running: Enter was pressed"] })
    }), 60_000)

  it.live("no longer wrong: a client that asks for the view (Ctrl-L) before each key it sends passes every check", () =>
    Effect.gen(function*() {
      // Each check takes the datagram of the key it typed, not the Ctrl-L before it: the z that
      // refusal-shown types was once left unread, and taken by quit for the Q it typed.
      expect(failing(yield* check([process.execPath, toy, "--bugs=asks"]))).toEqual([])
    }), 60_000)

  it.live("awkward-input: a DISPLAY with no final newline ends it; n added to the purse instead of reading p", () =>
    Effect.gen(function*() {
      const crashed = yield* failuresWith("newline", "awkward-input")
      expect(crashed.at(-1)).toMatchObject({ what: "the client ended", spec: { line: "91" } })
      const added = yield* failuresWith("purse", "awkward-input")
      expect(added[0]!.what).toBe("each message came twice; the status line should show a purse of 3 and 247 nuggets left, and @ stand at row 3, column 10")
    }), 60_000)
})
