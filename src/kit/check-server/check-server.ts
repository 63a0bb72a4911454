import { Effect, Either } from "effect"
import type { GameMap } from "../../core/map.js"
import { resolveHost } from "../../net/resolve.js"
import { Udp, type UdpError } from "../../net/udp.js"
import type { Dialect } from "../../protocol/dialect.js"
import { runChecks, type Step } from "../conformance/check.js"
import type { ConformanceReport } from "../conformance/report.js"
import { Requirements } from "../conformance/requirements.js"
import { Clients } from "./clients.js"
import { gameOver, playerLimit, serverExit } from "./end.js"
import { badMessages, joinPlayer, joinSpectator, unknownKeys } from "./join.js"
import { displayFraming, goldTotals, messageForm, pileCount, spectatorView, visibility } from "./judge.js"
import { names } from "./names.js"
import { goldToAll, moveKeys, quit, spectatorReplacement, swap } from "./play.js"
import type { ServerCheck, ServerCheckName, ServerGives, ServerTools } from "./server-check.js"
import { SightJudge } from "./sight-judge.js"
import { Traffic } from "./traffic.js"

/** `nuggets check server`: plays against a live server over UDP and reports how well it follows the spec. */

/** Every check, in the order the report lists them. */
export const serverChecks: { readonly [K in ServerCheckName]: ServerCheck<K, ServerCheckName, unknown> } = {
  "join-spectator": joinSpectator,
  "join-player": joinPlayer,
  "unknown-keys": unknownKeys,
  "bad-messages": badMessages,
  "move-keys": moveKeys,
  "gold-to-all": goldToAll,
  swap,
  "spectator-replacement": spectatorReplacement,
  quit,
  "player-limit": playerLimit,
  "game-over": gameOver,
  "server-exit": serverExit,
  names,
  "display-framing": displayFraming,
  "message-form": messageForm,
  "gold-totals": goldTotals,
  "pile-count": pileCount,
  "spectator-view": spectatorView,
  visibility
}

export const serverCheckNames = Object.values(serverChecks).map((check) => check.name)

/**
 * The order they run in: the garbage late, for a server may not survive it, but before the
 * game is played out; the player with the awkward name joins early, to be in the summary;
 * what judges all the traffic last.
 */
export const serverRunOrder: ReadonlyArray<Step<ServerCheckName>> = [
  "join-spectator",
  "join-player",
  { prepare: "names" },
  "unknown-keys",
  "move-keys",
  "gold-to-all",
  "swap",
  "spectator-replacement",
  "quit",
  "player-limit",
  "bad-messages",
  "game-over",
  "server-exit",
  "display-framing",
  "message-form",
  "gold-totals",
  "pile-count",
  "spectator-view",
  "visibility",
  "names"
]

/** What a whole game, or filling it, may take at least. */
const longCheckMs = 120_000

export interface CheckServerOptions {
  readonly host: string
  readonly port: number
  readonly dialect: Dialect | undefined
  readonly map: { readonly file: string; readonly map: GameMap } | undefined
  readonly only: ServerCheckName | undefined
  /** The deadline per check. */
  readonly checkMs: number
  /** The deadline for the whole run. */
  readonly totalMs: number
  /** How long to wait for each answer. */
  readonly answerMs: number
}

const dialectName = (dialect: Dialect | undefined) => dialect ?? "unknown"

export const checkServer = (options: CheckServerOptions): Effect.Effect<ConformanceReport, never, Udp> =>
  Effect.gen(function*() {
    const target = `nuggets check server ${options.host}:${options.port}`
    const resolved = yield* Effect.either(resolveHost(options.host))
    if (Either.isLeft(resolved)) {
      return {
        target,
        about: [],
        checks: [{ name: "join-spectator", title: "reach the server", status: "fail" as const, notes: [], ms: 0, failures: [{ what: resolved.left.message, spec: Requirements.joinAs }] }]
      }
    }
    const judge = options.map ? new SightJudge(options.map.map) : undefined
    const traffic = new Traffic(options.dialect, judge)
    const clients = new Clients({ server: { address: resolved.right.address, port: options.port }, family: resolved.right.family, answerMs: options.answerMs }, traffic, yield* Effect.scope, yield* Udp)
    let stepsRun = 0
    /** The step during which the server went away, if it did before its game was over. */
    let gone: string | undefined
    const tools: ServerTools = { clients, traffic, map: options.map?.map, judge, answerMs: options.answerMs }
    const checks = yield* runChecks<ServerGives, ServerTools, UdpError, never, ServerCheck<ServerCheckName, ServerCheckName, unknown>>({
      checks: serverChecks,
      order: serverRunOrder,
      only: options.only,
      tools,
      totalMs: options.totalMs,
      budgetMs: (check) => (check.long ? Math.max(longCheckMs, options.checkMs) : options.checkMs),
      skipped: (check) => (check.needsMap && !options.map ? "needs --map" : undefined),
      notRun: (check, preparing) => {
        const gathered = check.judgesGathered && !preparing
        if (!gathered && stepsRun > 0 && traffic.received === 0) return "the server never answered"
        if (!gathered && gone !== undefined && check.name !== "server-exit") {
          return `the server is gone (its port was found closed during ${gone}); run again with --only NAME on a fresh server`
        }
        stepsRun++
        return undefined
      },
      // A port closed at the game's end is what the spec asks for; before it, the server died.
      afterStep: (check, label) => void (gone ??= check.name !== "game-over" && clients.anyPortClosed() ? label : undefined),
      timedOut: (ms) => ({ what: `no verdict within ${Math.round(ms / 1000)} s: the server stopped answering, or answered too slowly`, spec: Requirements.reactToMessages }),
      notRunFailure: (why) => ({ what: `not run: ${why}`, spec: Requirements.reactToMessages }),
      failureOf: (error) => Effect.succeed({ what: `the checker could not open a socket: ${error.message}`, spec: Requirements.joinAs })
    })
    const about = [
      `dialect: ${dialectName(traffic.dialect)} (${traffic.dialect === undefined ? "no message told; judged as 2019" : traffic.dialectWhy})`,
      options.map ? `map: ${options.map.file} (${options.map.map.rows}x${options.map.map.cols})` : "no --map: the checks that need the map are skipped"
    ]
    return { target, about, checks }
  }).pipe(Effect.scoped)
