import { Effect } from "effect"
import { Udp, type UdpError } from "../../net/udp.js"
import { runChecks, type Step } from "../conformance/check.js"
import type { ConformanceReport } from "../conformance/report.js"
import { Requirements } from "../conformance/requirements.js"
import { awkwardInput, gameOver, nameTruncation, refusedJoin, smallWindow } from "./fresh-clients.js"
import { badMessageNote, goldReceived, joinPlayer, joinSpectator, keys, mapDrawn, quit, refusalShown, statusLine } from "./player-and-spectator.js"
import type { ClientCheck, ClientCheckName, ClientGives, ClientTools } from "./client-check.js"
import { type ClientCheckOptions, commandFor } from "./stage.js"
import type { TtyError } from "./tmux-control.js"
import { tmuxAvailable } from "./tty.js"

/**
 * `nuggets check client -- COMMAND ...`: runs a client in a terminal the checker owns,
 * against a server the checker plays, and reports what it sent and showed.
 */

/** Every check, in the order the report lists them. */
export const clientChecks: { readonly [K in ClientCheckName]: ClientCheck<K, ClientCheckName> } = {
  "join-player": joinPlayer,
  "join-spectator": joinSpectator,
  "name-truncation": nameTruncation,
  "status-line": statusLine,
  "map-drawn": mapDrawn,
  keys,
  "gold-received": goldReceived,
  "refusal-shown": refusalShown,
  "bad-message-note": badMessageNote,
  quit,
  "game-over": gameOver,
  "refused-join": refusedJoin,
  "small-window": smallWindow,
  "awkward-input": awkwardInput
}

export const clientCheckNames = Object.values(clientChecks).map((check) => check.name)

/**
 * The order they run in: the long name first, on a client of its own, so that the player and
 * the spectator, whose clients live from their joining to their quitting, wait least.
 */
export const clientRunOrder: ReadonlyArray<Step<ClientCheckName>> = [
  "name-truncation",
  "join-player",
  "join-spectator",
  "status-line",
  "map-drawn",
  "keys",
  "gold-received",
  "refusal-shown",
  "bad-message-note",
  "quit",
  "game-over",
  "refused-join",
  "small-window",
  "awkward-input"
]

export interface CheckClientOptions extends ClientCheckOptions {
  readonly only: ClientCheckName | undefined
  /** The deadline per check. */
  readonly checkMs: number
  readonly totalMs: number
}

export const checkClient = (options: CheckClientOptions): Effect.Effect<ConformanceReport, TtyError, Udp> =>
  Effect.gen(function*() {
    yield* tmuxAvailable
    const tools: ClientTools = { options, udp: yield* Udp }
    const checks = yield* runChecks<ClientGives, ClientTools, UdpError | TtyError, TtyError, ClientCheck<ClientCheckName, ClientCheckName>>({
      checks: clientChecks,
      order: clientRunOrder,
      only: options.only,
      tools: () => tools,
      totalMs: options.totalMs,
      budgetMs: () => options.checkMs,
      timedOut: (ms) => ({ what: `no verdict within ${Math.round(ms / 1000)} s`, spec: Requirements.joinAs }),
      failureOf: (error) =>
        error._tag === "TtyError"
          ? Effect.fail(error)
          : Effect.succeed({ what: `the checker could not open its server: ${error.message}`, spec: Requirements.joinAs })
    })
    return {
      target: `nuggets check client ${options.command.join(" ")}`,
      about: [
        `dialect: ${options.dialect}`,
        `run as: ${commandFor(options.command, 0, "NAME").join(" ").replace(" 0 ", " PORT ")} 2>${options.clientLog ?? "(a file of the checker's)"}, ` +
          "in a terminal of 80 x 24 (20 x 5 for the small window)"
      ],
      checks
    }
  }).pipe(Effect.scoped)
