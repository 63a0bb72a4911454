import { Effect, Option } from "effect"
import { MoveKeys } from "../../core/constants.js"
import { Blocked, stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { type Requirement, Requirements } from "../conformance/requirements.js"
import type { ClientCheck, ClientContext, ClientRecorder } from "./client-check.js"
import { display, grid, gridSize, playerRows, playerStatus, playerWelcome, spectatorRows, wording } from "./game.js"
import {
  awaitGame,
  awaitSent,
  drawnAt,
  expectExit,
  expectSent,
  findGrid,
  openStage,
  roomySize,
  row,
  shown,
  sizeComplaint,
  type Stage,
  startMs,
  statusSays
} from "./stage.js"

/**
 * The checks of `check client` on the client run with a name (player A) and on the one run
 * with none (the spectator): each is let in by a check of its own, and the checks that build
 * on it go on with the same client, until they quit.
 */

const playerWelcomed = "OK A, GRID, GOLD 0 0 250, DISPLAY"
/** The text of the refusal the checker's server sends. */
const refusalWords = "no such key: z"
const spectatorWelcomed = "GRID, GOLD 0 0 250, DISPLAY"

/** The player and the spectator that the check builds on, those that were let in; blocked if neither was. */
const both = (context: ClientContext<"join-player" | "join-spectator">) =>
  Effect.gen(function*() {
    const player = yield* Effect.option(context.need("join-player"))
    const spectator = yield* Effect.option(context.need("join-spectator"))
    if (Option.isNone(player) && Option.isNone(spectator)) return yield* Effect.fail(new Blocked("join-player"))
    return { player: Option.getOrUndefined(player), spectator: Option.getOrUndefined(spectator) }
  })

/** Once let in, the client plays in a window large enough: one that says the window is too small reads GRID wrong, and the checks that build on it are not run. */
const playsInRoomyWindow = (context: ClientRecorder, stage: Stage, rows: ReadonlyArray<string>, sent: string) =>
  Effect.gen(function*() {
    const game = yield* awaitGame(stage, rows, context.options.answerMs)
    if (game.complaint !== undefined) return yield* stop({ what: sizeComplaint(game.complaint, game.lines, roomySize, gridSize), sent, got: shown(game.lines), spec: Requirements.windowSize })
  })

export const joinPlayer: ClientCheck<"join-player"> = {
  name: "join-player",
  title: "given a name, the client sends PLAY name first, and plays in a window large enough for the grid",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, "Alice", roomySize)
      const play = yield* awaitSent(stage, "PLAY", Requirements.joinAs, (text) => text.startsWith("PLAY") || text === "SPECTATE", startMs(context.options))
      if (play !== "PLAY Alice") context.fail({ what: "the client did not join as the player Alice", got: escaped(play), spec: Requirements.play })
      yield* stage.server.send(...playerWelcome)
      yield* playsInRoomyWindow(context, stage, playerRows(), playerWelcomed)
      return stage
    })
}

export const joinSpectator: ClientCheck<"join-spectator"> = {
  name: "join-spectator",
  title: "given no name, the client sends SPECTATE first, and watches in a window large enough for the grid",
  needs: [],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* openStage(context, undefined, roomySize)
      const spectate = yield* awaitSent(stage, "SPECTATE", Requirements.joinAs, (text) => text.startsWith("PLAY") || text.startsWith("SPECTATE"), startMs(context.options))
      if (spectate !== "SPECTATE") context.fail({ what: "run with no name, the client did not join as the spectator", got: escaped(spectate), spec: Requirements.spectate })
      yield* stage.server.send(grid, "GOLD 0 0 250", display(spectatorRows()))
      yield* playsInRoomyWindow(context, stage, spectatorRows(), spectatorWelcomed)
      return stage
    })
}

/** A player's status line: what the spectator, whose own the spec gives, must not be shown. */
const playersStatus = /^\s*Player\b|\bhas \d+ nuggets\b/

/**
 * The status line as the spec writes it passes; the same numbers in other words (no final
 * period, `(250 unclaimed)`) differ only from the spec's example, which it says the line
 * "should look like": a warning; without the numbers, or a player's line for the spectator,
 * a failure.
 */
const judgeStatus = (context: ClientRecorder, stage: Stage, sentence: string, numbers: RegExp, sent: string, spec: Requirement) =>
  Effect.gen(function*() {
    const { lines, ok } = yield* stage.tty.screenWhen(context.options.answerMs, (lines) => statusSays(lines, sentence))
    if (ok) return
    const spectator = sentence.startsWith("Spectator")
    if (spectator && playersStatus.test(lines[0] ?? "")) {
      context.fail({ what: `the spectator is shown a player's status line; the spec gives the spectator its own, "${sentence}"`, sent, got: row(lines, 0), spec })
    } else if (numbers.test(lines[0] ?? "")) {
      context.warn({ what: `the status line says it in other words than the spec's example, "${sentence}"`, sent, got: row(lines, 0), spec })
    } else {
      context.fail({ what: `the status line should read "${sentence}"`, sent, got: row(lines, 0), spec })
    }
  })

export const statusLine: ClientCheck<"status-line", "join-player" | "join-spectator"> = {
  name: "status-line",
  title: "the status line reads as the spec writes it, for a player and for the spectator",
  needs: ["join-player", "join-spectator"],
  run: (context) =>
    Effect.gen(function*() {
      const { player, spectator } = yield* both(context)
      if (player) yield* judgeStatus(context, player, playerStatus(0, 250), /\bA\b.*\b0\b.*\b250\b/, playerWelcomed, Requirements.playerStatus)
      if (spectator) yield* judgeStatus(context, spectator, "Spectator: 250 nuggets unclaimed.", /\b250\b/, spectatorWelcomed, Requirements.spectatorStatus)
    })
}

const judgeMap = (context: ClientRecorder, stage: Stage, rows: ReadonlyArray<string>, sent: string) =>
  Effect.gen(function*() {
    const { lines, ok } = yield* stage.tty.screenWhen(context.options.answerMs, (lines) => drawnAt(lines, rows))
    if (ok) return
    const at = findGrid(lines, rows)
    const wrong = rows.findIndex((each, index) => (lines[1 + index] ?? "").trimEnd() !== each.trimEnd())
    context.fail({
      what: at === undefined
        ? "the grid is not on the screen"
        : at.row === 1 && at.col === 0
        ? `the grid under the status line is not the DISPLAY's: its row ${wrong} shows ${escaped(lines[1 + wrong] ?? "", 40)}, not ${escaped(rows[wrong] ?? "", 40)}`
        : `the grid is drawn from row ${at.row}, column ${at.col}; the spec puts it right under the status line (row 1, column 0)`,
      sent,
      got: shown(lines),
      spec: Requirements.gridBelow
    })
  })

export const mapDrawn: ClientCheck<"map-drawn", "join-player" | "join-spectator"> = {
  name: "map-drawn",
  title: "the grid is drawn right under the status line, as the DISPLAY has it",
  needs: ["join-player", "join-spectator"],
  run: (context) =>
    Effect.gen(function*() {
      const { player, spectator } = yield* both(context)
      if (player) yield* judgeMap(context, player, playerRows(), playerWelcomed)
      if (spectator) yield* judgeMap(context, spectator, spectatorRows(), spectatorWelcomed)
    })
}

/** A key the client sent of its own accord (Ctrl-L to ask for the view again, say), not one typed. */
const ownKey = (text: string) => /^KEY [\x00-\x1f]$/.test(text)

export const keys: ClientCheck<"keys", "join-player"> = {
  name: "keys",
  title: "each move key and its capital typed is sent as KEY k",
  needs: ["join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* context.need("join-player")
      for (const key of [...MoveKeys, ...MoveKeys.map((each) => each.toUpperCase())]) {
        yield* stage.tty.type(key)
        const got = yield* expectSent(context, stage, `KEY ${key}`, Requirements.key, (text) => text.startsWith("KEY") && !ownKey(text), `the key ${key} typed`)
        if (got !== undefined && got !== `KEY ${key}`) {
          context.fail({ what: `the key ${key} typed was sent as something else`, sent: `the key ${key} typed`, got: escaped(got), spec: Requirements.key })
        }
        // Answered as a server would, so that no client asks again.
        yield* stage.server.send(display(playerRows()))
      }
      const own = stage.server.heard.filter((each) => ownKey(each.text)).map((each) => escaped(each.text))
      if (own.length > 0) context.note(`it also sent, of its own accord: ${[...new Set(own)].join(", ")}`)
    })
}

export const goldReceived: ClientCheck<"gold-received", "join-player"> = {
  name: "gold-received",
  title: "GOLD alone updates the purse and the nuggets left, and says GOLD received: n",
  needs: ["join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* context.need("join-player")
      // Alone, with no DISPLAY after it: a client that shows a GOLD only with the next DISPLAY does not update as new information arrives.
      const sent = "GOLD 5 5 245, alone"
      yield* stage.server.send("GOLD 5 5 245")
      const exactly = (lines: ReadonlyArray<string>) => statusSays(lines, playerStatus(5, 245)) && /GOLD received: 5\b/i.test(lines[0] ?? "")
      const gold = yield* stage.tty.screenWhen(context.options.answerMs, exactly)
      if (gold.ok) return
      const status = gold.lines[0] ?? ""
      if (!/\b5\b.*\b245\b/.test(status)) {
        return context.fail({ what: "after GOLD 5 5 245 the status line does not show the purse of 5 and the 245 nuggets left", sent, got: row(gold.lines, 0), spec: Requirements.updateDisplay })
      }
      const toldReceived = (status.match(/\b5\b/g) ?? []).length >= 2
      context.warn({
        what: toldReceived
          ? `the status line tells of the 5 nuggets received in other words than the spec's example, "${playerStatus(5, 245)}  GOLD received: 5"`
          : `the status line does not tell of the 5 nuggets received, as the spec's example does: "${playerStatus(5, 245)}  GOLD received: 5"`,
        sent,
        got: row(gold.lines, 0),
        spec: Requirements.goldReceived
      })
    })
}

export const refusalShown: ClientCheck<"refusal-shown", "join-player"> = {
  name: "refusal-shown",
  title: "the text of a refusal (NO, or ERROR in 2021) is shown on the status line",
  needs: ["join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* context.need("join-player")
      // Words no client makes up itself: a client that writes its own note for a key it does not know says something else.
      const refusal = wording(context.options.dialect).refusal(refusalWords)
      yield* stage.tty.type("z")
      // The typed key's datagram, not a Ctrl-L the client sent of its own accord: left unread, the
      // z would be taken by the next check for the key it types.
      yield* stage.server.next("KEY z", context.options.answerMs, (text) => text.startsWith("KEY") && !ownKey(text)).pipe(Effect.ignore)
      yield* stage.server.send(refusal)
      const refused = yield* stage.tty.screenWhen(context.options.answerMs, (lines) => (lines[0] ?? "").includes(refusalWords))
      if (!refused.ok) context.fail({ what: "the refusal's text is not on the status line", sent: escaped(refusal), got: row(refused.lines, 0), spec: Requirements.showNo })
    })
}

export const badMessageNote: ClientCheck<"bad-message-note", "join-player"> = {
  name: "bad-message-note",
  title: "a message it does not know gets a brief note on the status line, and play goes on",
  needs: ["join-player"],
  run: (context) =>
    Effect.gen(function*() {
      const stage = yield* context.need("join-player")
      // The status line as it is once the game is drawn, for the note to change.
      const { lines } = yield* stage.tty.screenWhen(context.options.answerMs, (lines) => drawnAt(lines, playerRows()))
      const before = lines[0] ?? ""
      yield* stage.server.send("HELLO there")
      // A note beside the status, or in its place, but something new on the status line.
      const noted = yield* stage.tty.screenWhen(context.options.answerMs, (lines) => {
        const status = (lines[0] ?? "").trim()
        return status !== before.trim() && status !== playerStatus(5, 245)
      })
      if ((yield* stage.tty.ended) !== undefined) {
        return context.fail({ what: "the client ended at a message it did not know", sent: escaped("HELLO there"), got: shown(noted.lines), spec: Requirements.noteOnBadMessage })
      }
      if (!noted.ok) context.fail({ what: "no note on the status line for a message it does not know", sent: escaped("HELLO there"), got: row(noted.lines, 0), spec: Requirements.noteOnBadMessage })
    })
}

export const quit: ClientCheck<"quit", "join-player" | "join-spectator"> = {
  name: "quit",
  title: "Q is sent as KEY Q; at QUIT the client exits with status 0 and the terminal restored",
  needs: ["join-player", "join-spectator"],
  run: (context) =>
    Effect.gen(function*() {
      const { player, spectator } = yield* both(context)
      if (player && (yield* player.tty.ended) !== undefined) {
        context.note("the player's client had already ended: only the spectator's quit is judged")
      } else if (player) {
        yield* player.tty.type("Q")
        const sent = yield* expectSent(context, player, "KEY Q", Requirements.moveKeys, (text) => text.startsWith("KEY") && !ownKey(text), "the key Q typed")
        if (sent !== undefined && sent !== "KEY Q") context.fail({ what: "the key Q typed was sent as something else", got: escaped(sent), spec: Requirements.moveKeys })
        yield* player.server.send("QUIT Thanks for playing!")
        yield* expectExit(context, player, escaped("QUIT Thanks for playing!"), Requirements.quit, 5000)
      }
      if (spectator) {
        const replaced = "QUIT You have been replaced by a new spectator."
        yield* spectator.server.send(replaced)
        yield* expectExit(context, spectator, escaped(replaced), Requirements.quitWhenTold, 5000)
      }
    })
}
