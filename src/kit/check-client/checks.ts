import { Effect } from "effect"
import { MaxNameLength } from "../../core/constants.js"
import { display, grid, playerRows, spectatorRows, summary, summaryWords, wording } from "./game.js"
import { drawnAt, expectExit, expectSent, findGrid, row, screenWhen, shown, type Stage, startMs } from "./stage.js"
import { escaped } from "../conformance/lint.js"
import { Spec } from "../conformance/requirements.js"

/**
 * The scenarios of `check client`, each a fresh client in a fresh terminal: what the
 * scripted server sends, and what the client must send and show in answer.
 */

const playerStatus = (purse: number, left: number) => `Player A has ${purse} nuggets (${left} nuggets unclaimed).`

/** The status line says `sentence` first (blanks before it allowed). */
const statusSays = (lines: ReadonlyArray<string>, sentence: string) => (lines[0] ?? "").trimStart().startsWith(sentence)

/** OK A, GRID, GOLD 0 0 250 and a DISPLAY: the player is in. */
const welcomePlayer = (stage: Stage) => stage.server.send("OK A", grid, "GOLD 0 0 250", display(playerRows()))

const judgeStatus = (stage: Stage, sentence: string, sent: string, spec = Spec.playerStatus) =>
  Effect.gen(function*() {
    const { lines, ok } = yield* screenWhen(stage.tty, stage.options.answerMs, (lines) => statusSays(lines, sentence))
    if (!ok) stage.fail("status-line", { what: `the status line should read "${sentence}"`, sent, got: row(lines, 0), spec })
    return lines
  })

const judgeMap = (stage: Stage, rows: ReadonlyArray<string>, sent: string) =>
  Effect.gen(function*() {
    const { lines, ok } = yield* screenWhen(stage.tty, stage.options.answerMs, (lines) => drawnAt(lines, rows))
    if (ok) return
    const at = findGrid(lines, rows)
    const wrong = rows.findIndex((each, index) => (lines[1 + index] ?? "").trimEnd() !== each.trimEnd())
    stage.fail("map-drawn", {
      what: at === undefined
        ? "the grid is not on the screen"
        : at.row === 1 && at.col === 0
        ? `the grid under the status line is not the DISPLAY's: its row ${wrong} shows ${escaped(lines[1 + wrong] ?? "", 40)}, not ${escaped(rows[wrong]!, 40)}`
        : `the grid is drawn from row ${at.row}, column ${at.col}; the spec puts it right under the status line (row 1, column 0)`,
      sent,
      got: shown(lines),
      spec: Spec.gridBelow
    })
  })

/** The player: PLAY, the status line and the map, every key, GOLD, a refusal, a bad message, then Q and QUIT. */
export const playerScenario = (stage: Stage) =>
  Effect.gen(function*() {
    const { server, tty } = stage
    const play = yield* expectSent(stage, "join-player", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY") || text === "SPECTATE", undefined, startMs(stage))
    if (play === undefined) return
    if (play !== "PLAY Alice") stage.fail("join-player", { what: "the client did not join as the player Alice", got: escaped(play), spec: Spec.play })
    yield* welcomePlayer(stage)
    const sent = "OK A, GRID, GOLD 0 0 250, DISPLAY"
    yield* judgeStatus(stage, playerStatus(0, 250), sent)
    yield* judgeMap(stage, playerRows(), sent)

    const extra: Array<string> = []
    for (const key of "hljkyubnHLJKYUBN") {
      yield* tty.type(key)
      const got = yield* expectSent(stage, "keys", `KEY ${key}`, Spec.key, (text) => text.startsWith("KEY") && !/^KEY [\x00-\x1f]$/.test(text), `the key ${key} typed`)
      if (got !== undefined && got !== `KEY ${key}`) stage.fail("keys", { what: `the key ${key} typed was sent as something else`, sent: `the key ${key} typed`, got: escaped(got), spec: Spec.key })
      // Answered as a server would, so that no client asks again.
      yield* server.send(display(playerRows()))
    }
    extra.push(...server.heard.filter((each) => /^KEY [\x00-\x1f]$/.test(each.text)).map((each) => escaped(each.text)))
    if (extra.length > 0) stage.note("keys", `it also sent, of its own accord: ${[...new Set(extra)].join(", ")}`)

    yield* server.send("GOLD 5 5 245")
    const gold = yield* screenWhen(tty, stage.options.answerMs, (lines) => statusSays(lines, playerStatus(5, 245)) && /GOLD received: 5\b/i.test(lines[0]!))
    if (!gold.ok) {
      stage.fail("gold-received", {
        what: `after GOLD 5 5 245 the status line should read "${playerStatus(5, 245)}  GOLD received: 5"`,
        sent: escaped("GOLD 5 5 245"),
        got: row(gold.lines, 0),
        spec: Spec.goldReceived
      })
    }

    const refusal = wording(stage.options.dialect).refusal("unknown keystroke")
    yield* tty.type("z")
    yield* server.next("KEY z", stage.options.answerMs).pipe(Effect.ignore)
    yield* server.send(refusal)
    const refused = yield* screenWhen(tty, stage.options.answerMs, (lines) => (lines[0] ?? "").includes("unknown keystroke"))
    if (!refused.ok) stage.fail("refusal-shown", { what: "the refusal's text is not on the status line", sent: escaped(refusal), got: row(refused.lines, 0), spec: Spec.showNo })

    const before = (yield* tty.screen)[0] ?? ""
    yield* server.send("HELLO there")
    // A note beside the status, or in its place, but something new on the status line.
    const noted = yield* screenWhen(tty, stage.options.answerMs, (lines) => {
      const status = (lines[0] ?? "").trim()
      return status !== before.trim() && status !== playerStatus(5, 245)
    })
    const stillThere = (yield* tty.ended) === undefined
    if (!stillThere) {
      stage.fail("bad-message-note", { what: "the client ended at a message it did not know", sent: escaped("HELLO there"), got: shown(noted.lines), spec: Spec.noteOnBadMessage })
      return
    }
    if (!noted.ok) stage.fail("bad-message-note", { what: "no note on the status line for a message it does not know", sent: escaped("HELLO there"), got: row(noted.lines, 0), spec: Spec.noteOnBadMessage })

    yield* tty.type("Q")
    const quit = yield* expectSent(stage, "quit", "KEY Q", Spec.moveKeys, (text) => text.startsWith("KEY") && !/^KEY [\x00-\x1f]$/.test(text), "the key Q typed")
    if (quit !== undefined && quit !== "KEY Q") stage.fail("quit", { what: "the key Q typed was sent as something else", got: escaped(quit), spec: Spec.moveKeys })
    yield* server.send("QUIT Thanks for playing!")
    yield* expectExit(stage, "quit", escaped("QUIT Thanks for playing!"), Spec.quit, 5000)
  })

/** The spectator: SPECTATE, its status line and the whole map, then replaced by another. */
export const spectatorScenario = (stage: Stage) =>
  Effect.gen(function*() {
    const spectate = yield* expectSent(stage, "join-spectator", "SPECTATE", Spec.joinAs, (text) => text.startsWith("PLAY") || text.startsWith("SPECTATE"), undefined, startMs(stage))
    if (spectate === undefined) return
    if (spectate !== "SPECTATE") stage.fail("join-spectator", { what: "run with no name, the client did not join as the spectator", got: escaped(spectate), spec: Spec.spectate })
    yield* stage.server.send(grid, "GOLD 0 0 250", display(spectatorRows()))
    const sent = "GRID, GOLD 0 0 250, DISPLAY"
    yield* judgeStatus(stage, "Spectator: 250 nuggets unclaimed.", sent, Spec.spectatorStatus)
    yield* judgeMap(stage, spectatorRows(), sent)
    const quit = "QUIT You have been replaced by a new spectator."
    yield* stage.server.send(quit)
    yield* expectExit(stage, "quit", escaped(quit), Spec.quitWhenTold, 5000)
  })

export const gameOverScenario = (stage: Stage) =>
  Effect.gen(function*() {
    if ((yield* expectSent(stage, "game-over", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY"), undefined, startMs(stage))) === undefined) return
    yield* welcomePlayer(stage)
    yield* screenWhen(stage.tty, stage.options.answerMs, (lines) => drawnAt(lines, playerRows()))
    const over = wording(stage.options.dialect).gameOver(summary)
    yield* stage.server.send(over)
    const exit = yield* expectExit(stage, "game-over", escaped(over), Spec.printSummary, 10_000)
    if (exit === undefined) return
    const text = exit.lines.join("\n")
    const missing = summaryWords.filter((word) => !text.includes(word))
    if (missing.length > 0) {
      stage.fail("game-over", { what: `the summary is not printed: ${missing.join(", ")} missing from the screen`, sent: escaped(over), got: shown(exit.lines), spec: Spec.printSummary })
    }
  })

export const refusedScenario = (stage: Stage) =>
  Effect.gen(function*() {
    if ((yield* expectSent(stage, "refused-join", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY"), undefined, startMs(stage))) === undefined) return
    const full = wording(stage.options.dialect).gameFull
    yield* stage.server.send(full)
    const exit = yield* expectExit(stage, "refused-join", escaped(full), full === "NO" ? Spec.gameFull : Spec.quit, 5000, false)
    if (exit === undefined) return
    // The spec asks only that it exit; whether the words reach the user is worth knowing.
    const told = full === "NO" || exit.lines.join("\n").includes("Game is full")
    stage.note("refused-join", `it exited with status ${exit.ended.code}${told ? "" : "; the reason the server gave was not on the terminal (stderr goes to the log)"}`)
  })

/** A window too small for the grid: a complaint, and the game once it is enlarged. */
export const smallWindowScenario = (stage: Stage) =>
  Effect.gen(function*() {
    if ((yield* expectSent(stage, "small-window", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY"), undefined, startMs(stage))) === undefined) return
    yield* welcomePlayer(stage)
    const sent = "OK A, GRID 6 32, GOLD 0 0 250, DISPLAY, in a window of 20 x 5"
    yield* Effect.sleep(`${Math.min(1500, stage.options.answerMs)} millis`)
    const lines = yield* stage.tty.screen
    if ((yield* stage.tty.ended) !== undefined) {
      return stage.fail("small-window", { what: "the client exited instead of waiting for a larger window", sent, got: shown(lines), spec: Spec.tooSmall })
    }
    if (!lines.some((line) => /small|large|big|enlarge|resize|size/i.test(line))) {
      stage.fail("small-window", { what: "no complaint that the window is too small", sent, got: shown(lines), spec: Spec.tooSmall })
    }
    yield* stage.tty.resize({ columns: 80, rows: 24 })
    let drawn = yield* screenWhen(stage.tty, stage.options.answerMs, (screen) => drawnAt(screen, playerRows()))
    if (!drawn.ok && (yield* stage.tty.ended) === undefined) {
      yield* stage.tty.press("Enter")
      drawn = yield* screenWhen(stage.tty, stage.options.answerMs, (screen) => drawnAt(screen, playerRows()))
      if (drawn.ok) stage.note("small-window", "it drew the game once Enter was pressed")
    }
    if (!drawn.ok) stage.fail("small-window", { what: "enlarged to 80 x 24, the game did not appear", sent: "the window made 80 x 24", got: shown(drawn.lines), spec: Spec.tooSmall })
  })

/** What real servers send: a DISPLAY with no final newline, each message twice, messages lost. */
export const awkwardScenario = (stage: Stage) =>
  Effect.gen(function*() {
    const { server, tty } = stage
    if ((yield* expectSent(stage, "awkward-input", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY"), undefined, startMs(stage))) === undefined) return
    yield* welcomePlayer(stage)
    yield* screenWhen(tty, stage.options.answerMs, (lines) => drawnAt(lines, playerRows()))
    const bare = display(playerRows({ row: 3, col: 9 }), false)
    yield* server.send(bare)
    const took = yield* screenWhen(tty, stage.options.answerMs, (lines) => drawnAt(lines, playerRows({ row: 3, col: 9 })))
    if (!took.ok) stage.note("awkward-input", "it did not draw a DISPLAY whose last row has no newline")
    yield* server.send("GOLD 3 3 247", "GOLD 3 3 247", display(playerRows({ row: 3, col: 10 })), display(playerRows({ row: 3, col: 10 })))
    const twice = yield* screenWhen(tty, stage.options.answerMs, (lines) => statusSays(lines, playerStatus(3, 247)) && drawnAt(lines, playerRows({ row: 3, col: 10 })))
    if (!twice.ok) {
      stage.fail("awkward-input", { what: `each message came twice; the status line should read "${playerStatus(3, 247)}" and @ stand at row 3, column 10`, sent: "GOLD 3 3 247 and a DISPLAY, each twice", got: shown(twice.lines), spec: Spec.updateDisplay })
    }
    // Lost on the way: GOLD 2 5 245 and the DISPLAY with @ at column 11.
    yield* server.send("GOLD 2 7 243", display(playerRows({ row: 3, col: 12 })))
    const after = yield* screenWhen(tty, stage.options.answerMs, (lines) => statusSays(lines, playerStatus(7, 243)) && drawnAt(lines, playerRows({ row: 3, col: 12 })))
    if (!after.ok) {
      stage.fail("awkward-input", { what: `after a lost GOLD and a lost DISPLAY, the next ones should show: "${playerStatus(7, 243)}", @ at row 3, column 12`, sent: "GOLD 2 7 243 and a DISPLAY", got: shown(after.lines), spec: Spec.gold })
    }
    if ((yield* tty.ended) !== undefined) stage.fail("awkward-input", { what: "the client ended", got: shown(after.lines), spec: Spec.updateDisplay })
  })

/** A name longer than the spec allows, to be cut before PLAY. */
export const longName = `Longname-${"x".repeat(MaxNameLength)}`

export const truncationScenario = (stage: Stage) =>
  Effect.gen(function*() {
    const play = yield* expectSent(stage, "name-truncation", "PLAY", Spec.joinAs, (text) => text.startsWith("PLAY"), undefined, startMs(stage))
    if (play === undefined) return
    const name = play.slice("PLAY ".length)
    // The spec says both "limit it to MaxNameLength" (83) and "less than MaxNameLength" (338): 50 or 49.
    const cut = longName.startsWith(name) && (name.length === MaxNameLength || name.length === MaxNameLength - 1)
    if (cut && name.length < MaxNameLength) stage.note("name-truncation", `it cut the name to ${name.length} characters (less than ${MaxNameLength}, as spec line 338 reads)`)
    if (!cut) {
      stage.fail("name-truncation", {
        what: `given a name of ${longName.length} characters, the client should send its first ${MaxNameLength}; it sent ${name.length}`,
        got: escaped(play),
        spec: Spec.truncateName
      })
    }
  })
