import { Effect, Either } from "effect"
import {
  awkwardScenario,
  gameOverScenario,
  longName,
  playerScenario,
  refusedScenario,
  smallWindowScenario,
  spectatorScenario,
  truncationScenario
} from "./scenarios.js"
import { type ClientCheckOptions, commandFor, openStage, roomySize, type Stage } from "./stage.js"
import type { CheckResult, Failure, Report } from "../conformance/report.js"
import { alike } from "../check-server/check-server.js"
import { Spec } from "../conformance/requirements.js"
import type { CheckInfo } from "../check-server/step.js"
import { type Size, tmuxAvailable, type TtyError } from "./tty.js"
import type { Udp } from "../../net/udp.js"

/**
 * `nuggets check client -- COMMAND ...`: runs a client in a terminal the checker owns,
 * against a server the checker plays, and reports what it sent and showed.
 */

export const clientChecks: ReadonlyArray<CheckInfo> = [
  { name: "join-player", title: "given a name, the client sends PLAY name first" },
  { name: "join-spectator", title: "given no name, the client sends SPECTATE first" },
  { name: "name-truncation", title: "a name longer than 50 characters is cut to 50 before PLAY" },
  { name: "status-line", title: "the status line reads as the spec writes it, for a player and for the spectator" },
  { name: "map-drawn", title: "the grid is drawn right under the status line, as the DISPLAY has it" },
  { name: "keys", title: "each move key and its capital typed is sent as KEY k" },
  { name: "gold-received", title: "GOLD updates the purse and the nuggets left, and says GOLD received: n" },
  { name: "refusal-shown", title: "the text of a refusal (NO, or ERROR in 2021) is shown on the status line" },
  { name: "bad-message-note", title: "a message it does not know gets a brief note on the status line, and play goes on" },
  { name: "quit", title: "Q is sent as KEY Q; at QUIT the client exits with status 0 and the terminal restored" },
  { name: "game-over", title: "at the game over the summary is printed, the terminal restored, and the client exits 0" },
  { name: "refused-join", title: "refused by a full game, the client tells the user and exits" },
  { name: "small-window", title: "in a window too small for the grid it complains and waits; enlarged, it plays" },
  { name: "awkward-input", title: "a DISPLAY with no final newline, every message twice, and lost messages do not lead it astray" }
]

interface Scenario {
  readonly name: string
  /** Whose name the client is given; undefined for the spectator. */
  readonly playerName: string | undefined
  readonly size: Size
  readonly checks: ReadonlyArray<string>
  readonly run: (stage: Stage) => Effect.Effect<void>
}

const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "player",
    playerName: "Alice",
    size: roomySize,
    checks: ["join-player", "status-line", "map-drawn", "keys", "gold-received", "refusal-shown", "bad-message-note", "quit"],
    run: playerScenario
  },
  { name: "spectator", playerName: undefined, size: roomySize, checks: ["join-spectator", "status-line", "map-drawn", "quit"], run: spectatorScenario },
  { name: "long name", playerName: longName, size: roomySize, checks: ["name-truncation"], run: truncationScenario },
  { name: "game over", playerName: "Alice", size: roomySize, checks: ["game-over"], run: gameOverScenario },
  { name: "refused", playerName: "Alice", size: roomySize, checks: ["refused-join"], run: refusedScenario },
  { name: "small window", playerName: "Alice", size: { columns: 20, rows: 5 }, checks: ["small-window"], run: smallWindowScenario },
  { name: "awkward input", playerName: "Alice", size: roomySize, checks: ["awkward-input"], run: awkwardScenario }
]

export interface CheckClientOptions extends ClientCheckOptions {
  readonly only: string | undefined
  /** The deadline per scenario (a fresh client each). */
  readonly scenarioMs: number
  readonly totalMs: number
}

export const checkClient = (options: CheckClientOptions): Effect.Effect<Report, TtyError, Udp> =>
  Effect.gen(function*() {
    yield* tmuxAvailable
    const results = new Map(clientChecks.map((check) => [check.name, { failures: [] as Array<Failure>, notes: [] as Array<string>, ms: 0 }]))
    const fail = (check: string, failure: Failure) => void results.get(check)!.failures.push(failure)
    const note = (check: string, text: string) => void results.get(check)!.notes.push(text)
    const started = performance.now()
    for (const scenario of scenarios) {
      if (options.only !== undefined && !scenario.checks.includes(options.only)) continue
      const left = options.totalMs - (performance.now() - started)
      if (left <= 0) {
        for (const check of scenario.checks) fail(check, { what: `not run: the whole check's deadline (${options.totalMs / 1000} s) passed`, spec: Spec.joinAs })
        continue
      }
      const scenarioStarted = performance.now()
      const outcome = yield* Effect.scoped(
        openStage(options, scenario.playerName, scenario.size, fail, note).pipe(Effect.flatMap(scenario.run))
      ).pipe(
        Effect.timeoutFail({ duration: Math.min(left, options.scenarioMs), onTimeout: () => ({ _tag: "Timeout" as const, message: "" }) }),
        Effect.either
      )
      const ms = Math.round(performance.now() - scenarioStarted)
      for (const check of scenario.checks) results.get(check)!.ms += ms
      if (Either.isLeft(outcome)) {
        const error = outcome.left
        if (error._tag === "TtyError") return yield* Effect.fail(error)
        const what = error._tag === "Timeout"
          ? `the ${scenario.name} scenario gave no verdict within ${Math.round(Math.min(left, options.scenarioMs) / 1000)} s`
          : `the checker could not open its server: ${error.message}`
        for (const check of scenario.checks) fail(check, { what, spec: Spec.joinAs })
      }
    }
    const checks: Array<CheckResult> = clientChecks
      .filter((check) => options.only === undefined || check.name === options.only)
      .map((check) => {
        const result = results.get(check.name)!
        return { name: check.name, title: check.title, status: result.failures.length > 0 ? "fail" : "pass", notes: result.notes, failures: alike(result.failures), ms: result.ms }
      })
    return {
      target: `nuggets check client ${options.command.join(" ")}`,
      about: [
        `dialect: ${options.dialect === "spec" ? "2019" : "2021"}`,
        `run as: ${commandFor(options.command, 0, "NAME").join(" ").replace(" 0 ", " PORT ")} 2>${options.clientLog ?? "(a file of the checker's)"}, ` +
          "in a terminal of 80 x 24 (20 x 5 for the small window)"
      ],
      checks
    }
  })
