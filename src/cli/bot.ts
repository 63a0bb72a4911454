import { Console, Duration, Effect, Option } from "effect"
import { type BotResult, defaultDeadline, resultLine, runBots } from "../bot/bots.js"
import { type Strategy, strategies } from "../bot/brain.js"
import { farewell } from "../client/screen.js"
import { choice, command, decimal, numberProblem, optional, optionalArg, text, textArg, wholeNumber, withDefault } from "./command.js"
import { checkName } from "./client.js"
import { CliError } from "./error.js"
import { seedOrClock } from "./maps.js"
import { findGame, isLobbyAddress, lobbyUrl, namesIn } from "./matchmaking.js"
import { logging } from "./logging.js"
import { type LogFormat, logFormatOption, maxSeed } from "./options.js"

const maxBots = 100

/** About a person's pace, so that people can play against bots. */
const defaultRate = 2

interface BotCommandOptions {
  /** A game's host, or a lobby's address (then no port). */
  readonly host: string
  readonly port: Option.Option<string>
  readonly count: number
  readonly strategy: Strategy
  readonly seed: Option.Option<number>
  readonly rate: number
  readonly name: string
  /** Seconds to wait for the server's answer to PLAY. */
  readonly timeout: number
  /** Seconds a bot plays at most. */
  readonly deadline: number
  readonly logFormat: LogFormat
}

/**
 * The game to play: `HOST PORT`, or the one a lobby finds (`http://HOST:PORT`, as `join`
 * takes it), with the names its players have.
 */
const gameOf = (options: BotCommandOptions) =>
  Effect.gen(function*() {
    if (!isLobbyAddress(options.host)) {
      if (Option.isNone(options.port)) return yield* new CliError({ message: "PORT — missing; try 'nuggets help bot'" })
      const problem = numberProblem("PORT", options.port.value, 1, 65535)
      if (problem !== undefined) return yield* new CliError({ message: problem })
      return { host: options.host, port: Number(options.port.value), taken: [] as ReadonlyArray<string> }
    }
    const url = lobbyUrl(options.host)
    if (url === undefined) return yield* new CliError({ message: `HOST — '${options.host}' is not a lobby's address: write http://HOST:PORT` })
    if (Option.isSome(options.port)) return yield* new CliError({ message: `unexpected argument '${options.port.value}' — a lobby finds the game` })
    const timeout = Duration.seconds(options.timeout)
    const match = yield* findGame(url, timeout)
    const taken = yield* namesIn(url, match.id, timeout)
    yield* Effect.logInfo(`the lobby found game ${match.id}${match.map === undefined ? "" : ` on ${match.map}`}`)
    return { host: match.address, port: match.port, taken }
  }).pipe(Effect.catchTag("LobbyError", (error) => new CliError({ message: error.message })))

/** `count` names `stem-1`, `stem-2`, ..., each the next that no one in the game has (letter case ignored). */
export const freeNames = (stem: string, count: number, taken: ReadonlyArray<string>): ReadonlyArray<string> => {
  const used = new Set(taken.map((name) => name.toLowerCase()))
  const names: Array<string> = []
  for (let n = 1; names.length < count; n++) {
    const name = `${stem}-${n}`
    if (!used.has(name.toLowerCase())) names.push(name)
  }
  return names
}

const bot = (options: BotCommandOptions) =>
  Effect.gen(function*() {
    yield* checkName(options.name, "--name")
    const seed = yield* seedOrClock(options.seed)
    const game = yield* gameOf(options)
    const where = `${game.host}:${game.port}`
    const names = freeNames(options.name, options.count, game.taken)
    const results = yield* runBots({
      host: game.host,
      port: game.port,
      count: options.count,
      strategy: options.strategy,
      seed,
      rate: options.rate,
      name: (index) => names[index]!,
      answerTimeout: Duration.seconds(options.timeout),
      deadline: Duration.seconds(options.deadline)
    })
    const failure = failureOf(results, where)
    if (failure !== undefined && results.every((result) => result.letter === undefined)) {
      return yield* new CliError({ message: failure })
    }
    for (const result of results) yield* Console.log(resultLine(result))
    if (failure !== undefined) return yield* new CliError({ message: failure })
  })

/** Why the run counts as failed, if it does: no server, a server that went away or could not be read, or no bot let in. */
const failureOf = (results: ReadonlyArray<BotResult>, where: string): string | undefined => {
  const count = (tag: string) => results.filter((result) => result.outcome._tag === tag).length
  const silent = count("NoAnswer")
  if (silent === results.length) return farewell({ _tag: "NoServer", server: where, why: "no answer" }, Infinity)
  if (count("Unreachable") === results.length) return farewell({ _tag: "NoServer", server: where, why: "port unreachable" }, Infinity)
  if (silent > 0) return `${where} — ${silent} of ${results.length} bots had no answer`
  const unreadable = results.find((result) => result.outcome._tag === "Unreadable")
  if (unreadable?.outcome._tag === "Unreadable") return `${where} — cannot read the server: ${unreadable.outcome.reason}`
  const lost = count("Lost")
  if (lost > 0) return `${where} — the server stopped answering`
  if (count("Deadline") > 0) return `${where} — the game did not end before the deadline`
  const refused = results.find((result) => result.outcome._tag === "Refused")
  if (count("Refused") === results.length && refused?.outcome._tag === "Refused") {
    return `${where} — every bot was refused: ${refused.outcome.reason || "NO"}`
  }
  return undefined
}

export const botNode = command(
  "bot",
  {
    summary: "Headless players that join a game and play until it ends. Prints one line per bot " +
      "(letter, purse, name); logs go to stderr.",
    args: {
      host: textArg("HOST", "name or address of the machine where the server runs; or a lobby's address, http://HOST:PORT"),
      port: textArg("PORT", "the port the server announced (none after a lobby's address)").pipe(optionalArg())
    },
    options: {
      count: wholeNumber("count", "N", 1, maxBots, `how many bots join, each its own player (1..${maxBots}; 26 fill a game)`).pipe(
        withDefault(1)
      ),
      strategy: choice("strategy", "S", strategies, "random: random moves; greedy: to the nearest gold seen, else explore").pipe(
        withDefault<Strategy>("greedy")
      ),
      seed: wholeNumber("seed", "N", 0, maxSeed, "makes the bots' choices reproducible").pipe(optional("the clock")),
      rate: decimal("rate", "R", 0.01, 1_000_000, "keys per second, per bot, with a little jitter: about a person's pace by default")
        .pipe(withDefault(defaultRate)),
      name: text("name", "NAME", "bots play as NAME-1, NAME-2, ... (in a lobby's game, the next names no one there has)").pipe(withDefault("bot")),
      timeout: decimal("timeout", "S", 0.1, 3600, "seconds to wait for the server's answer to PLAY (sent again after 1, 3, 7 s, ... while none comes)").pipe(withDefault(5)),
      deadline: decimal("deadline", "S", 0.1, 86_400, "seconds a bot plays at most before it quits").pipe(
        withDefault(Duration.toSeconds(defaultDeadline))
      ),
      logFormat: logFormatOption
    }
  },
  // Lines of text are what the program logs anyway; JSON replaces them.
  (options) =>
    options.logFormat === "text"
      ? bot(options)
      : bot(options).pipe(Effect.provide(logging({ file: Option.none(), level: "info", screen: false, format: options.logFormat })))
)
