import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Option } from "effect"
import { type BotResult, defaultDeadline, resultLine, runBots } from "../bot/bots.js"
import { type Strategy, strategies } from "../bot/brain.js"
import { CliError } from "./error.js"
import { decimalOption, leaf, wholeNumberArg, wholeNumberOption } from "./runner.js"
import { maxSeed, seedOrClock } from "./shared.js"

const maxBots = 100

/** About a person's pace, so that people can play against bots. */
const defaultRate = 2

interface BotCommandOptions {
  readonly host: string
  readonly port: number
  readonly count: number
  readonly strategy: Strategy
  readonly seed: Option.Option<number>
  readonly rate: number
  readonly name: string
  /** Seconds to wait for the server's answer to PLAY. */
  readonly timeout: number
  /** Seconds a bot plays at most. */
  readonly deadline: number
}

const bot = (options: BotCommandOptions) =>
  Effect.gen(function*() {
    if (options.name.trim() === "") return yield* new CliError({ message: "--name — must not be blank" })
    const seed = yield* seedOrClock(options.seed)
    const where = `${options.host}:${options.port}`
    const results = yield* runBots({
      host: options.host,
      port: options.port,
      count: options.count,
      strategy: options.strategy,
      seed,
      rate: options.rate,
      name: (index) => `${options.name}-${index + 1}`,
      answerTimeout: Duration.seconds(options.timeout),
      deadline: Duration.seconds(options.deadline)
    }).pipe(Effect.mapError((error) => new CliError({ message: error.message })))
    const failure = failureOf(results, where)
    if (failure !== undefined && results.every((result) => result.letter === undefined)) {
      return yield* new CliError({ message: failure })
    }
    for (const result of results) yield* Console.log(resultLine(result))
    if (failure !== undefined) return yield* new CliError({ message: failure })
  })

/** Why the run counts as failed, if it does: no server, a server that went away, or no bot let in. */
const failureOf = (results: ReadonlyArray<BotResult>, where: string): string | undefined => {
  const count = (tag: string) => results.filter((result) => result.outcome._tag === tag).length
  const silent = count("NoAnswer")
  if (silent === results.length) return `${where} — no Nuggets server answered`
  if (silent > 0) return `${where} — ${silent} of ${results.length} bots had no answer`
  const lost = count("Lost")
  if (lost > 0) return `${where} — the server stopped answering`
  if (count("Deadline") > 0) return `${where} — the game did not end before the deadline`
  const refused = results.find((result) => result.outcome._tag === "Refused")
  if (count("Refused") === results.length && refused?.outcome._tag === "Refused") {
    return `${where} — every bot was refused: ${refused.outcome.reason || "NO"}`
  }
  return undefined
}

const botCommand = Command.make(
  "bot",
  {
    host: Args.text({ name: "HOST" }),
    port: wholeNumberArg("PORT", 1, 65535),
    count: wholeNumberOption("count", 1, maxBots).pipe(Options.withDefault(1)),
    strategy: Options.choice("strategy", strategies).pipe(Options.withDefault("greedy" as Strategy)),
    seed: wholeNumberOption("seed", 0, maxSeed).pipe(Options.optional),
    rate: decimalOption("rate", 0.01, 1_000_000).pipe(Options.withDefault(defaultRate)),
    name: Options.text("name").pipe(Options.withDefault("bot")),
    timeout: decimalOption("timeout", 0.1, 3600).pipe(Options.withDefault(3)),
    deadline: decimalOption("deadline", 0.1, 86_400).pipe(Options.withDefault(Duration.toSeconds(defaultDeadline)))
  },
  bot
)

export const botNode = leaf(botCommand, {
  summary: "Headless players that join a game and play until it ends. Prints one line per bot " +
    "(letter, purse, name); logs go to stderr.",
  usage: "[options] HOST PORT",
  args: [
    { term: "HOST", text: "name or address of the machine where the server runs" },
    { term: "PORT", text: "the port the server announced" }
  ],
  options: [
    { term: "--count N", text: `how many bots join, each its own player (1..${maxBots}; 26 fill a game)`, default: "1" },
    { term: "--strategy S", text: "random: random moves; greedy: to the nearest gold seen, else explore", default: "greedy" },
    { term: "--seed N", text: "makes the bots' choices reproducible", default: "the clock" },
    { term: "--rate R", text: "keys per second, per bot, with a little jitter: about a person's pace by default", default: String(defaultRate) },
    { term: "--name NAME", text: "bots play as NAME-1, NAME-2, ...", default: "bot" },
    { term: "--timeout S", text: "seconds to wait for the server's answer to PLAY", default: "3" },
    {
      term: "--deadline S",
      text: "seconds a bot plays at most before it quits",
      default: String(Duration.toSeconds(defaultDeadline))
    }
  ]
})
