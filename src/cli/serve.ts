import { Console, Duration, Effect, Option } from "effect"
import { UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import { gameOver, lingerAfterGame } from "../server/udpLoop.js"
import { LiveWeb } from "../web/gameWeb.js"
import { command, eitherOf } from "./command.js"
import { checkHostingFiles, hostingLayer, hostingOf } from "./hosting.js"
import { logging } from "./logging.js"
import { gameSetup, logWarnings } from "./maps.js"
import {
  compatOption,
  hostingOptions,
  hostingRules,
  logFormatOption,
  logLevelOption,
  logOption,
  mapArg,
  seedArg,
  webAddress,
  webLines
} from "./options.js"


export const serveNode = command(
  "serve",
  {
    summary: "Run a game server. Prints the port, then the game-over summary; logs go to stderr (or to --log FILE).",
    args: { mapArg, seedArg },
    options: {
      ...hostingOptions,
      compat: compatOption("speak the later CS50 protocol: QUIT GAME OVER, ERROR, sight through room spots only"),
      log: logOption("instead of stderr"),
      logLevel: logLevelOption,
      logFormat: logFormatOption
    },
    rules: hostingRules
  },
  (options) =>
    Effect.gen(function*() {
      const mapFile = yield* eitherOf(options.mapArg, options.map, ["MAP", "--map"])
      const seedGiven = yield* eitherOf(options.seedArg, options.seed, ["SEED", "--seed"])
      const dialect: Dialect = Option.isSome(options.compat) ? "2021" : "2019"
      const web = yield* webAddress(options.web, options.webName)
      yield* checkHostingFiles(options, mapFile)
      const setup = yield* gameSetup({ mapFile, seed: seedGiven })
      const { map, seed } = setup
      const serving = Effect.gen(function*() {
        const socket = yield* UdpSocket
        const page = yield* Effect.serviceOption(LiveWeb)
        // Everything is listening by now: the port line announces a game ready in every way it is offered.
        yield* Console.log(`Ready to play, waiting at port ${socket.local.port}`)
        if (Option.isSome(page)) yield* Console.log(webLines("Watch and play in a browser", page.value))
        yield* Effect.logInfo(
          `serving a ${map.rows}x${map.cols} map on ${socket.local.address}:${socket.local.port}, seed ${seed}` +
            (dialect === "2019" ? "" : `, ${dialect} dialect`) +
            (options.variant === "classic" ? "" : `, ${options.variant} variant`) +
            Option.match(options.record, { onNone: () => "", onSome: (path) => `, recording to ${path}` }) +
            `, players silent for ${Duration.format(options.idleTimeout)} count as having quit` +
            Option.match(page, { onNone: () => "", onSome: ({ url }) => `, web page at ${url}` })
        )
        const result = yield* gameOver
        yield* Console.log(result.summary.trimEnd())
        yield* lingerAfterGame()
      })
      const hosting = hostingLayer(hostingOf(options, { map, seed, dialect }, web))
      yield* logWarnings(setup).pipe(
        Effect.zipRight(serving.pipe(Effect.provide(hosting))),
        Effect.provide(logging({ file: options.log, level: options.logLevel, screen: false, format: options.logFormat }))
      )
    })
)
