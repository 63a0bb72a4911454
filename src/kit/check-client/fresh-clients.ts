import { Effect } from "effect"
import { MaxNameLength } from "../../core/constants.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { ClientCheck } from "./client-check.js"
import { display, playerRows, playerWelcome, summary, summaryWords, wording } from "./game.js"
import { notRun } from "../conformance/check.js"
import { aboveGrid, awaitGame, awaitSent, complaint, expectExit, gridAt, openStage, roomySize, shown, showsPurse, type Stage, startMs } from "./stage.js"

/** The checks of `check client` that each run a fresh client of their own, from its start to its end. */

/** The game drawn in a roomy window; not run when the client says the window is too small (join-player says why). */
const playing = (stage: Stage, answerMs: number) =>
  Effect.gen(function*() {
    const game = yield* awaitGame(stage, playerRows(), answerMs)
    if (game.complaint !== undefined) return yield* notRun(`in a window of ${roomySize.columns} x ${roomySize.rows} the client says it is too small (see join-player)`)
  })

/** A name longer than the spec allows, to be cut before PLAY. */
export const longName = `Longname-${"x".repeat(MaxNameLength)}`

export const nameTruncation: ClientCheck<"name-truncation"> = {
  name: "name-truncation",
  title: "a name longer than 50 characters is cut to 50 before PLAY",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, longName, roomySize)
      const play = yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY"), startMs(context.options))
      const name = play.slice("PLAY ".length)
      // The spec says both "limit it to MaxNameLength" (83) and "less than MaxNameLength" (338): 50 or 49.
      const cut = longName.startsWith(name) && (name.length === MaxNameLength || name.length === MaxNameLength - 1)
      if (cut && name.length < MaxNameLength) context.note(`it cut the name to ${name.length} characters (less than ${MaxNameLength}, as spec line 338 reads)`)
      if (!cut) {
        context.fail({
          what: `given a name of ${longName.length} characters, the client should send its first ${MaxNameLength}; it sent ${name.length}`,
          got: escaped(play),
          spec: Requirements.truncateName
        })
      }
    })
}

/** Whether every word of the summary is on the screen. */
const summaryShown = (lines: ReadonlyArray<string>) => summaryWords.every((word) => lines.join("\n").includes(word))

export const gameOver: ClientCheck<"game-over"> = {
  name: "game-over",
  title: "at the game over the summary is printed, the terminal restored, and the client exits 0",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, "Alice", roomySize)
      yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY"), startMs(context.options))
      yield* stage.server.send(...playerWelcome)
      yield* playing(stage, context.options.answerMs)
      const over = wording(context.options.dialect).gameOver(summary)
      yield* stage.server.send(over)
      // What the screen shows at the game over, whether the client exits at once or shows it and waits for a key.
      const atTheEnd = yield* stage.tty.screenWhen(Math.max(context.options.answerMs, 3000), summaryShown)
      if ((yield* stage.tty.ended) === undefined && atTheEnd.ok) {
        yield* stage.tty.press("Enter")
        context.note("it showed the summary and went on running: Enter was pressed")
      }
      const exit = yield* expectExit(context, stage, escaped(over), Requirements.printSummary, 10_000)
      const seen = [...atTheEnd.lines, ...(exit?.lines ?? [])]
      const missing = summaryWords.filter((word) => !seen.join("\n").includes(word))
      if (missing.length > 0) {
        context.fail({ what: `the summary is not printed: ${missing.join(", ")} missing from the screen`, sent: escaped(over), got: shown(exit?.lines ?? atTheEnd.lines), spec: Requirements.printSummary })
      }
    })
}

export const refusedJoin: ClientCheck<"refused-join"> = {
  name: "refused-join",
  title: "refused by a full game, the client tells the user and exits",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, "Alice", roomySize)
      yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY"), startMs(context.options))
      const full = wording(context.options.dialect).gameFull
      yield* stage.server.send(full)
      const exit = yield* expectExit(context, stage, escaped(full), full === "NO" ? Requirements.gameFull : Requirements.quit, 5000, false)
      if (exit === undefined) return
      // The spec asks only that it exit; whether the words reach the user is worth knowing.
      const told = full === "NO" || exit.lines.join("\n").includes("Game is full")
      context.note(`it exited with status ${exit.ended.code}${told ? "" : "; the reason the server gave was not on the terminal (stderr goes to the log)"}`)
    })
}

export const smallWindow: ClientCheck<"small-window"> = {
  name: "small-window",
  title: "in a window too small for the grid it complains and waits; enlarged, it plays",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, "Alice", { columns: 20, rows: 5 })
      yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY"), startMs(context.options))
      yield* stage.server.send(...playerWelcome)
      const sent = "OK A, GRID 6 32, GOLD 0 0 250, DISPLAY, in a window of 20 x 5"
      // It waits: it has not ended a while after.
      const ended = yield* stage.tty.untilEnded(Math.min(1500, context.options.answerMs))
      const lines = yield* stage.tty.screen
      if (ended !== undefined) {
        return context.fail({ what: "the client exited instead of waiting for a larger window", sent, got: shown(lines), spec: Requirements.tooSmall })
      }
      // Read as text: a complaint may wrap over rows.
      if (complaint(lines, stage.tty.size().columns) === undefined) {
        context.fail({ what: "no complaint that the window is too small", sent, got: shown(lines), spec: Requirements.tooSmall })
      }
      yield* stage.tty.resize(roomySize)
      // The grid wherever it is: where it is drawn is map-drawn's to judge.
      const gameDrawn = (screen: ReadonlyArray<string>) => gridAt(screen, playerRows()) !== undefined
      let drawn = yield* stage.tty.screenWhen(context.options.answerMs, gameDrawn)
      // A client may wait for a key once the window is large enough: Enter, or any key.
      for (const [key, name] of [["Enter", "Enter"], ["Space", "the space bar"]] as const) {
        if (drawn.ok || (yield* stage.tty.ended) !== undefined) break
        yield* stage.tty.press(key)
        drawn = yield* stage.tty.screenWhen(context.options.answerMs, gameDrawn)
        if (drawn.ok) context.note(`it drew the game once ${name} was pressed`)
      }
      if (!drawn.ok && complaint(drawn.lines, roomySize.columns) !== undefined) {
        return yield* notRun(`enlarged to ${roomySize.columns} x ${roomySize.rows}, it still says the window is too small (see join-player)`)
      }
      if (!drawn.ok) context.fail({ what: "enlarged to 80 x 24, the game did not appear", sent: "the window made 80 x 24", got: shown(drawn.lines), spec: Requirements.tooSmall })
    })
}

/**
 * What real servers send: a DISPLAY with no final newline, each message twice, messages
 * lost. Judged by what the screen means, not its words: the purse and the nuggets left on
 * the status line (on a row or more, above the grid), the grid found by its content.
 */
export const awkwardInput: ClientCheck<"awkward-input"> = {
  name: "awkward-input",
  title: "a DISPLAY with no final newline, every message twice, and lost messages do not lead it astray",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, "Alice", roomySize)
      const { server, tty } = stage
      const answerMs = context.options.answerMs
      yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY"), startMs(context.options))
      yield* stage.server.send(...playerWelcome)
      yield* playing(stage, answerMs)
      const at = (col: number) => playerRows({ row: 3, col })
      const shows = (lines: ReadonlyArray<string>, col: number, purse: number, left: number) =>
        gridAt(lines, at(col)) !== undefined && showsPurse(aboveGrid(lines, at(col)), purse, left)
      yield* server.send(display(at(9), false))
      // Drawn, or refused or ignored as it goes on: either is a reading of it.
      const took = yield* tty.screenWhen(answerMs, (lines) => gridAt(lines, at(9)) !== undefined)
      if (!took.ok) context.note("it did not draw a DISPLAY whose last row has no newline")
      yield* server.send("GOLD 3 3 247", "GOLD 3 3 247", display(at(10)), display(at(10)))
      const twice = yield* tty.screenWhen(answerMs, (lines) => shows(lines, 10, 3, 247))
      if (!twice.ok) {
        context.fail({
          what: "each message came twice; the status line should show a purse of 3 and 247 nuggets left, and @ stand at row 3, column 10",
          sent: "GOLD 3 3 247 and a DISPLAY, each twice",
          got: shown(twice.lines),
          spec: Requirements.updateDisplay
        })
      }
      // Lost on the way: GOLD 2 5 245 and the DISPLAY with @ at column 11.
      yield* server.send("GOLD 2 7 243", display(playerRows({ row: 3, col: 12 })))
      const after = yield* tty.screenWhen(answerMs, (lines) => shows(lines, 12, 7, 243))
      if (!after.ok) {
        context.fail({
          what: "after a lost GOLD and a lost DISPLAY, the next ones should show: a purse of 7 and 243 nuggets left, @ at row 3, column 12",
          sent: "GOLD 2 7 243 and a DISPLAY",
          got: shown(after.lines),
          spec: Requirements.gold
        })
      }
      if ((yield* tty.ended) !== undefined) context.fail({ what: "the client ended", got: shown(after.lines), spec: Requirements.updateDisplay })
    })
}
