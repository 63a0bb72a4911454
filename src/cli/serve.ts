import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { isIPv6 } from "node:net"
import type { Variant } from "../core/rules.js"
import { udpLayer, UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import { runServer } from "../server/server.js"
import { startWeb } from "../web/live.js"
import { CliError } from "./error.js"
import { leaf, wholeNumberArg } from "./runner.js"
import {
  gameSetup,
  hostHelp,
  hostOption,
  logLevelHelp,
  logLevelOption,
  maxSeed,
  portHelp,
  portOption,
  recordHelp,
  recordOption,
  rulesFor,
  variantHelp,
  variantOption,
  webAddress,
  webHelp,
  webOption,
  withLogLevel
} from "./shared.js"

interface ServeOptions {
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<number>
  readonly port: number
  readonly host: string
  readonly dialect: Dialect
  readonly variant: Variant
  readonly logLevel: "debug" | "info" | "warning" | "error" | "none"
  readonly record: Option.Option<string>
  readonly web: Option.Option<string>
}

const serve = (options: ServeOptions) =>
  Effect.gen(function*() {
    const { map, seed } = yield* gameSetup(options)
    const web = yield* webAddress(options.web)
    const game = Effect.gen(function*() {
      const socket = yield* UdpSocket
      yield* runServer({
        map,
        seed,
        dialect: options.dialect,
        rules: rulesFor(options.dialect, options.variant),
        ...Option.match(options.record, { onNone: () => ({}), onSome: (record) => ({ record }) }),
        started: (host) =>
          Effect.gen(function*() {
            // The page first: the port line announces a game ready in every way it is offered.
            const page = Option.isSome(web) ? Option.some(yield* startWeb(host, web.value)) : Option.none()
            yield* Console.log(`Ready to play, waiting at port ${socket.local.port}`)
            if (Option.isSome(page)) yield* Console.log(`Watch and play in a browser: ${page.value.url}`)
            yield* Effect.logInfo(
              `serving a ${map.rows}x${map.cols} map on ${socket.local.address}:${socket.local.port}, seed ${seed}` +
                (options.dialect === "spec" ? "" : `, ${options.dialect} dialect`) +
                (options.variant === "classic" ? "" : `, ${options.variant} variant`) +
                Option.match(options.record, { onNone: () => "", onSome: (file) => `, recording to ${file}` }) +
                Option.match(page, { onNone: () => "", onSome: ({ url }) => `, web page at ${url}` })
            )
          }),
        ended: (result) => Console.log(result.summary.trimEnd())
      })
    })
    yield* game.pipe(
      Effect.provide(udpLayer({ port: options.port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" })),
      Effect.mapError((error) => new CliError({ message: error.message }))
    )
  }).pipe(withLogLevel(options.logLevel))

const serveCommand = Command.make(
  "serve",
  {
    mapFile: Args.text({ name: "MAP" }).pipe(Args.optional),
    seed: wholeNumberArg("SEED", 0, maxSeed).pipe(Args.optional),
    port: portOption,
    host: hostOption,
    compat: Options.choice("compat", ["cs50-2021"]).pipe(Options.optional),
    variant: variantOption,
    logLevel: logLevelOption,
    record: recordOption,
    web: webOption
  },
  ({ compat, host, logLevel, mapFile, port, record, seed, variant, web }) =>
    serve({ mapFile, seed, port, host, dialect: Option.getOrElse(compat, () => "spec" as const), variant, logLevel, record, web })
)

export const serveNode = leaf(serveCommand, {
  summary: "Run a game server. Prints the port, then the game-over summary; logs go to stderr.",
  usage: "[options] [MAP [SEED]]",
  args: [
    { term: "MAP", text: "the map file", default: "the spec's example map, built in" },
    { term: "SEED", text: "a whole number: the same seed and the same moves replay the same game", default: "the clock" }
  ],
  options: [
    portHelp,
    hostHelp,
    {
      term: "--compat cs50-2021",
      text: "speak the later CS50 protocol: QUIT GAME OVER, ERROR, sight through room spots only"
    },
    variantHelp,
    recordHelp,
    webHelp,
    logLevelHelp
  ]
})
