import { Args, Command, Options } from "@effect/cli"
import { Clock, Console, Effect, Either, Option } from "effect"
import { readFile } from "node:fs/promises"
import { isIPv6 } from "node:net"
import { CliError } from "../cliError.js"
import { type GameMap, parseMap, validateMap } from "../core/map.js"
import { udpLayer, UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/messages.js"
import { defaultMapText } from "./defaultMap.js"
import { runServer } from "./server.js"

/** Reads and checks a map file; the error names the file and what is wrong where. */
export const loadMapFile = (path: string): Effect.Effect<GameMap, CliError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => new CliError({ message: `cannot read map file '${path}': ${readFailure(error)}` })
  }).pipe(Effect.flatMap((text) => checkedMap(text, path)))

export const readFailure = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code
  return code === "ENOENT"
    ? "no such file"
    : code === "EACCES"
    ? "permission denied"
    : code === "EISDIR"
    ? "it is a directory"
    : String((error as Error).message ?? error)
}

export const checkedMap = (text: string, source: string): Effect.Effect<GameMap, CliError> =>
  parseMap(text).pipe(
    Either.flatMap(validateMap),
    Either.mapLeft((error) => new CliError({ message: `invalid map ${source}: ${error.message}` }))
  )

export const parseSeed = (text: string): Effect.Effect<number, CliError> =>
  /^\d{1,15}$/.test(text)
    ? Effect.succeed(Number(text))
    : Effect.fail(new CliError({ message: `the seed must be a non-negative integer, not '${text}'` }))

export const checkPort = (port: number, allowAny: boolean): Effect.Effect<number, CliError> =>
  Number.isInteger(port) && port >= (allowAny ? 0 : 1) && port <= 65535
    ? Effect.succeed(port)
    : Effect.fail(new CliError({ message: `the port must be ${allowAny ? 0 : 1}..65535, not ${port}` }))

/** Seeds from the clock when no seed is given, so each unseeded game differs. */
export const seedOrClock = (seed: Option.Option<string>) =>
  Option.match(seed, { onNone: () => Clock.currentTimeMillis.pipe(Effect.map(Number)), onSome: parseSeed })

export interface ServeOptions {
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly port: number
  readonly host: string
  readonly dialect: Dialect
}

/** What every way of starting a server checks first: the map, the seed and the port. */
export const gameSetup = (options: {
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly port: number
}) =>
  Effect.all({
    map: Option.match(options.mapFile, { onNone: () => checkedMap(defaultMapText, "(built-in)"), onSome: loadMapFile }),
    seed: seedOrClock(options.seed),
    port: checkPort(options.port, true)
  })

export const portOption = Options.integer("port").pipe(
  Options.withDescription("UDP port to listen on; 0 picks a free one."),
  Options.withDefault(0)
)

export const hostOption = Options.text("host").pipe(
  Options.withDescription("Address to listen on (0.0.0.0: every interface; 127.0.0.1: this machine only)."),
  Options.withDefault("0.0.0.0")
)

export const serve = (options: ServeOptions) =>
  Effect.gen(function*() {
    const { map, port, seed } = yield* gameSetup(options)
    const game = Effect.gen(function*() {
      const socket = yield* UdpSocket
      yield* Console.log(`Ready to play, waiting at port ${socket.local.port}`)
      yield* Effect.logInfo(
        `serving a ${map.rows}x${map.cols} map on ${socket.local.address}:${socket.local.port}, seed ${seed}` +
          (options.dialect === "spec" ? "" : `, ${options.dialect} dialect`)
      )
      const result = yield* runServer({ map, seed, dialect: options.dialect })
      yield* Console.log(result.summary.trimEnd())
    })
    yield* game.pipe(
      Effect.provide(udpLayer({ port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" })),
      Effect.mapError((error) => new CliError({ message: error.message }))
    )
  })

export const serveCommand = Command.make(
  "serve",
  {
    mapFile: Args.text({ name: "map.txt" }).pipe(
      Args.withDescription("The map file; without one, the built-in example map of the spec."),
      Args.optional
    ),
    seed: Args.text({ name: "seed" }).pipe(
      Args.withDescription("A non-negative integer: the same seed and the same moves replay the same game."),
      Args.optional
    ),
    port: portOption,
    host: hostOption,
    compat: Options.choice("compat", ["cs50-2021"]).pipe(
      Options.withDescription(
        "Speak the later CS50 form of the protocol: QUIT GAME OVER, ERROR, sight through room spots only."
      ),
      Options.optional
    )
  },
  ({ compat, host, mapFile, port, seed }) =>
    serve({ mapFile, seed, port, host, dialect: Option.getOrElse(compat, () => "spec" as const) })
).pipe(Command.withDescription("Run a game server. Prints the port, then the game-over summary; logs go to stderr."))
