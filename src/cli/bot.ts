import { Args, Command, Options } from "@effect/cli"
import { Console, Duration, Effect, Option } from "effect"
import { type BotResult, resultLine, runBots } from "../bot/bots.js"
import { type Strategy, strategies } from "../bot/brain.js"
import { CliError } from "./error.js"
import { checkPort, seedOrClock } from "./shared.js"

const maxBots = 100

interface BotCommandOptions {
  readonly host: string
  readonly port: number
  readonly count: number
  readonly strategy: Strategy
  readonly seed: Option.Option<string>
  readonly rate: number
  readonly name: string
  /** Seconds to wait for the server's answer to PLAY. */
  readonly timeout: number
}

const check = (ok: boolean, message: string) => (ok ? Effect.void : Effect.fail(new CliError({ message })))

const bot = (options: BotCommandOptions) =>
  Effect.gen(function*() {
    const port = yield* checkPort(options.port, false)
    yield* check(
      Number.isInteger(options.count) && options.count >= 1 && options.count <= maxBots,
      `--count must be 1..${maxBots}, not ${options.count}`
    )
    yield* check(
      Number.isFinite(options.rate) && options.rate > 0 && options.rate <= 1_000_000,
      `--rate must be more than 0 keys per second, not ${options.rate}`
    )
    yield* check(options.name.trim() !== "", "--name must not be blank")
    yield* check(options.timeout > 0, `--timeout must be more than 0 seconds, not ${options.timeout}`)
    const seed = yield* seedOrClock(options.seed)
    yield* Effect.logInfo(
      `${options.count} ${options.strategy} bot(s) joining ${options.host}:${port}, ${options.rate} keys/s, seed ${seed}`
    )
    const results = yield* runBots({
      host: options.host,
      port,
      count: options.count,
      strategy: options.strategy,
      seed,
      rate: options.rate,
      name: (index) => `${options.name}-${index + 1}`,
      answerTimeout: Duration.seconds(options.timeout)
    }).pipe(Effect.mapError((error) => new CliError({ message: error.message })))
    const failure = failureOf(results, `${options.host}:${port}`)
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
  if (silent === results.length) return `no answer from a server at ${where}`
  if (silent > 0) return `${silent} of ${results.length} bots had no answer from ${where}`
  const lost = count("Lost")
  if (lost > 0) return `the server at ${where} stopped answering`
  const refused = results.find((result) => result.outcome._tag === "Refused")
  if (count("Refused") === results.length && refused?.outcome._tag === "Refused") {
    return `every bot was refused: ${refused.outcome.reason || "NO"}`
  }
  return undefined
}

export const botCommand = Command.make(
  "bot",
  {
    host: Args.text({ name: "host" }).pipe(Args.withDescription("name or address of the machine where the server runs")),
    port: Args.integer({ name: "port" }).pipe(Args.withDescription("the port the server announced")),
    count: Options.integer("count").pipe(
      Options.withDescription(`how many bots join, each as its own player (1..${maxBots}; 26 fill a game)`),
      Options.withDefault(1)
    ),
    strategy: Options.choice("strategy", strategies).pipe(
      Options.withDescription("random: random moves; greedy: walk to the nearest gold seen or remembered, else explore"),
      Options.withDefault("greedy" as const)
    ),
    seed: Options.text("seed").pipe(
      Options.withDescription("a non-negative integer that makes the bots' choices reproducible"),
      Options.optional
    ),
    rate: Options.float("rate").pipe(
      Options.withDescription("keys per second, per bot"),
      Options.withDefault(10)
    ),
    name: Options.text("name").pipe(
      Options.withDescription("bots play as NAME-1, NAME-2, ..."),
      Options.withDefault("bot")
    ),
    timeout: Options.float("timeout").pipe(
      Options.withDescription("seconds to wait for the server's answer to PLAY"),
      Options.withDefault(3)
    )
  },
  (options) => bot(options)
).pipe(
  Command.withDescription(
    "Headless players that join a game and play until it ends. Prints one line per bot (letter, purse, name); logs go to stderr."
  )
)
