import { Effect, Either } from "effect"
import type { GameMap } from "../../core/map.js"
import type { Udp, UdpError } from "../../net/udp.js"
import type { Dialect } from "../../protocol/dialect.js"
import { type AfterStep, runChecks, type Step } from "../conformance/check.js"
import type { CheckResult, ConformanceReport } from "../conformance/report.js"
import { Requirements } from "../conformance/requirements.js"
import { newPlayerDrop, occupantsDrawn } from "./drops.js"
import { gameOver, playerLimit, serverExit } from "./end.js"
import { crashFailure, Games, type Target } from "./games.js"
import { badMessages, joinPlayer, joinSpectator, unknownKeys } from "./join.js"
import { displayFraming, goldTotals, messageForm, pileCount, spectatorView, visibility } from "./judge.js"
import { commandLine } from "./launch.js"
import { names } from "./names.js"
import { goldToAll, moveKeys, quit, spectatorReplacement, swap } from "./play.js"
import { SendLog } from "./sends.js"
import type { ServerCheck, ServerCheckName, ServerGives, ServerTools } from "./server-check.js"
import { SightJudge } from "./sight-judge.js"
import { noStaleView } from "./stale.js"
import { Traffic } from "./traffic.js"

/**
 * `nuggets check server`: plays against a server over UDP and reports how well it follows
 * the spec. The server is one at HOST PORT, or one the checker starts itself (`-- COMMAND`),
 * which it can start afresh: for the checks that need a fresh game, and after a crash, so
 * that every check is judged even on a server that dies.
 */

/** Every check, in the order the report lists them. */
export const serverChecks: { readonly [K in ServerCheckName]: ServerCheck<K, ServerCheckName, unknown> } = {
  "join-spectator": joinSpectator,
  "join-player": joinPlayer,
  "unknown-keys": unknownKeys,
  "bad-messages": badMessages,
  "move-keys": moveKeys,
  "gold-to-all": goldToAll,
  swap,
  "no-stale-view": noStaleView,
  "spectator-replacement": spectatorReplacement,
  quit,
  "player-limit": playerLimit,
  "game-over": gameOver,
  "server-exit": serverExit,
  names,
  "new-player-drop": newPlayerDrop,
  "occupants-drawn": occupantsDrawn,
  "display-framing": displayFraming,
  "message-form": messageForm,
  "gold-totals": goldTotals,
  "pile-count": pileCount,
  "spectator-view": spectatorView,
  visibility
}

export const serverCheckNames = Object.values(serverChecks).map((check) => check.name)

const playing: ReadonlyArray<Step<ServerCheckName>> = [
  "join-spectator",
  "join-player",
  { prepare: "names" },
  "unknown-keys",
  "move-keys",
  "gold-to-all",
  "swap",
  "no-stale-view",
  "spectator-replacement",
  "quit"
]

const judging: ReadonlyArray<Step<ServerCheckName>> = [
  "new-player-drop",
  "occupants-drawn",
  "display-framing",
  "message-form",
  "gold-totals",
  "pile-count",
  "spectator-view",
  "visibility",
  "names"
]

/**
 * The order on a server at HOST PORT, one game: the garbage late, for a server may not
 * survive it, but before the game is played out; the player with the awkward name joins
 * early, to be in the summary; what judges all the traffic last.
 */
export const serverRunOrder: ReadonlyArray<Step<ServerCheckName>> = [...playing, "player-limit", "bad-messages", "game-over", "server-exit", ...judging]

/** The order on servers the checker starts: the game played out with few players, then the limit and the garbage each on a fresh one. */
export const startedRunOrder: ReadonlyArray<Step<ServerCheckName>> = [...playing, "game-over", "server-exit", "player-limit", "bad-messages", ...judging]

export interface CheckServerOptions {
  /** The server at HOST PORT, or the command that starts it. */
  readonly target: Target
  readonly dialect: Dialect | undefined
  readonly map: { readonly file: string; readonly map: GameMap } | undefined
  readonly only: ServerCheckName | undefined
  /** The deadline per check (those that play a game get what the game may take). */
  readonly checkMs: number
  /** The deadline for the whole run. */
  readonly totalMs: number
  /** How long to wait for each answer. */
  readonly answerMs: number
}

const dialectName = (dialect: Dialect | undefined) => dialect ?? "unknown"

const targetText = (target: Target) =>
  target._tag === "Address" ? `${target.host}:${target.port}` : `-- ${target.command.join(" ")}`

/** The report when there is no server to check at all: the first check says why, the rest were not run. */
const unreachable = (target: Target, why: string): ReadonlyArray<CheckResult> =>
  Object.values(serverChecks).map((check, index) =>
    index === 0
      ? { name: check.name, title: check.title, status: "fail", notes: [], warnings: [], ms: 0, failures: [{ what: why, spec: target._tag === "Address" ? Requirements.joinAs : Requirements.reactToMessages }] }
      : { name: check.name, title: check.title, status: "not run", notRun: "there is no server to check (see join-spectator)", notes: [], warnings: [], failures: [], ms: 0 }
  )

export const checkServer = (options: CheckServerOptions): Effect.Effect<ConformanceReport, never, Udp> =>
  Effect.gen(function*() {
    const { target } = options
    const reportTarget = `nuggets check server ${targetText(target)}`
    const judge = options.map ? new SightJudge(options.map.map) : undefined
    const traffic = new Traffic(options.dialect, judge)
    const sends = new SendLog()
    const started = yield* Effect.either(Games.start(target, traffic, sends, options.answerMs))
    if (Either.isLeft(started)) {
      const why = target._tag === "Address" ? started.left.message : `the server could not be started: ${started.left.message}`
      return { target: reportTarget, about: [], checks: unreachable(target, why).filter((check) => options.only === undefined || check.name === options.only || check.status === "fail") }
    }
    const games = started.right
    let stepsRun = 0
    const restarts: Array<string> = []
    const crashed = new Set<number>()
    /** The check under way, and the one that asked to be played again from its own start, with why. */
    let current: ServerCheckName | undefined
    let afresh: { readonly check: ServerCheckName; readonly why: string } | undefined
    const playedAfresh = new Set<ServerCheckName>()
    const tools = (): ServerTools => ({
      clients: games.clients,
      games: games.all,
      traffic,
      game: games.game,
      map: options.map?.map,
      judge,
      answerMs: options.answerMs,
      startAfresh: (why) => {
        if (!games.startable || current === undefined || playedAfresh.has(current)) return false
        playedAfresh.add(current)
        afresh = { check: current, why }
        return true
      }
    })
    type Check = ServerCheck<ServerCheckName, ServerCheckName, unknown>
    const before = (check: Check, preparing: boolean) =>
      Effect.gen(function*() {
        sends.step = preparing ? `${check.name}, its preparation` : check.name
        sends.check = check.name
        traffic.step = sends.step
        current = check.name
        if (stepsRun > 0 && traffic.received === 0) return "the server never answered (see join-spectator)"
        if (check.judgesGathered && !preparing) return undefined
        const dead = games.death()
        const over = games.clients.gameEnded && check.name !== "server-exit"
        const again = afresh?.check === check.name ? afresh : undefined
        afresh = undefined
        if (games.startable && (dead !== undefined || over || again !== undefined || (check.freshGame && games.used))) {
          const restarted = yield* Effect.either(games.restart())
          if (Either.isLeft(restarted)) return `the server could not be started again: ${restarted.left.message}`
          restarts.push(dead !== undefined ? `after it died, for ${check.name}` : again !== undefined ? `for ${check.name} (${again.why})` : `for ${check.name}`)
        } else if (dead !== undefined) {
          return `the server is gone (${dead.how}; see the check that sent ${dead.culprit ? "what killed it" : "the last datagram"}); run again with --only ${check.name} on a fresh server`
        }
        stepsRun++
        return undefined
      })
    // A server found dead after a step: the step that sent the datagram before its death fails with it; a later one is run again on a fresh server, or not run.
    const after = (check: Check, _label: string, preparing: boolean): Effect.Effect<AfterStep<ServerCheckName>> =>
      Effect.gen(function*() {
        const game = games.game.number
        const death = crashed.has(game) ? undefined : games.death()
        // Played again from its own start, on a server started afresh (see `startAfresh`).
        if (death === undefined) return (afresh?.check === check.name && !preparing ? { again: true } : {}) as AfterStep<ServerCheckName>
        crashed.add(game)
        const culprit = death.culprit
        if (culprit !== undefined) traffic.crashedDuring(culprit.step)
        const confirmed = culprit === undefined ? undefined : yield* games.confirm(culprit, death.ended)
        const failure = crashFailure(death, target, confirmed, culprit === undefined ? [] : sends.historyOf(culprit))
        const owner = (culprit?.check ?? check.name) as ServerCheckName
        // Found only now, it was the culprit step's last: what that step found after sending it, it found of the death.
        const blame = [{ check: owner, failure, instead: owner !== check.name }]
        if (owner === check.name || (check.judgesGathered && !preparing)) return { blame, drop: owner === check.name } as AfterStep<ServerCheckName>
        if (games.startable) return { blame, again: true } as AfterStep<ServerCheckName>
        return { blame, notRun: `the server died before it could be judged (${check.name === owner ? "" : `of what ${owner} sent; `}${death.how}); run again with --only ${check.name} on a fresh server` } as AfterStep<ServerCheckName>
      })
    const checks = yield* runChecks<ServerGives, ServerTools, UdpError, never, Check>({
      checks: serverChecks,
      order: games.startable ? startedRunOrder : serverRunOrder,
      only: options.only,
      tools,
      totalMs: options.totalMs,
      budgetMs: (check) => Math.max(options.checkMs, check.deadlineMs?.(options.answerMs) ?? 0),
      skipped: (check) => (check.needsMap && !options.map ? "it needs --map (the map the server was started with)" : undefined),
      before,
      after,
      timedOut: (ms) => ({ what: `no verdict within ${Math.round(ms / 1000)} s: the server stopped answering, or answered too slowly`, spec: Requirements.reactToMessages }),
      failureOf: (error) => Effect.succeed({ what: `the checker could not open a socket: ${error.message}`, spec: Requirements.joinAs })
    })
    const first = games.all[0]
    const launched = games.all.length > 0 && target._tag === "Command"
    const about = [
      `dialect: ${dialectName(traffic.dialect)} (${traffic.dialect === undefined ? "no message told; each rule judged by what fits both dialects" : traffic.dialectWhy})`,
      options.map ? `map: ${options.map.file} (${options.map.map.rows}x${options.map.map.cols})` : "no --map: the checks that need the map were not run",
      ...(launched && target._tag === "Command" && first
        ? [
          `server: started as ${commandLine(target.command, target.map, target.seed).join(" ")}` +
          (restarts.length === 0 ? "" : `; started afresh ${restarts.join(", ")}`)
        ]
        : [])
    ]
    return { target: reportTarget, about, checks }
  }).pipe(Effect.scoped)
