import { Args, Command, Options } from "@effect/cli"
import { Console, Context, Effect, Fiber, Layer, Option } from "effect"
import { hostname, userInfo } from "node:os"
import { isIPv6 } from "node:net"
import { CliError } from "./cliError.js"
import { log, loggerLayer, reportEnding } from "./client/command.js"
import { defaultAnswerTimeout, join } from "./client/join.js"
import { terminalLayer } from "./client/terminal.js"
import { udpLayer, UdpSocket } from "./net/udp.js"
import { gameSetup, hostOption, portOption } from "./server/command.js"
import { runServer } from "./server/server.js"

/** The address this process's own client uses to reach a server bound to `host`. */
const localAddress = (host: string) =>
  host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host

const defaultName = () => {
  try {
    return userInfo().username || "player"
  } catch {
    return "player"
  }
}

export interface PlayOptions {
  readonly name: Option.Option<string>
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly port: number
  readonly host: string
  readonly log: Option.Option<string>
}

/**
 * A server in this process and the player in this terminal. When the player leaves or the
 * game ends, the server stops too, telling anyone else still playing.
 */
export const play = (options: PlayOptions) =>
  Effect.gen(function*() {
    const { map, port, seed } = yield* gameSetup(options)
    const name = Option.getOrElse(options.name, defaultName)
    const ending = yield* Effect.scoped(
      Effect.gen(function*() {
        const socket = yield* Layer.build(
          udpLayer({ port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" })
        ).pipe(Effect.map(Context.get(UdpSocket)))
        const server = yield* runServer({ map, seed }).pipe(
          Effect.provideService(UdpSocket, socket),
          Effect.forkScoped
        )
        yield* Console.log(
          `Nuggets server on port ${socket.local.port}; friends join with: ` +
            `nuggets join ${hostname()} ${socket.local.port} NAME`
        )
        const ending = yield* join(
          {
            host: localAddress(options.host),
            port: socket.local.port,
            role: { _tag: "Player", name },
            answerTimeout: defaultAnswerTimeout
          },
          terminalLayer
        )
        yield* Fiber.interrupt(server)
        return ending
      })
    )
    yield* reportEnding(ending)
  }).pipe(
    Effect.provide(loggerLayer(options.log)),
    Effect.catchTags({
      JoinError: (error) => new CliError({ message: error.message }),
      UdpError: (error) => new CliError({ message: error.message })
    })
  )

export const playCommand = Command.make(
  "play",
  {
    name: Args.text({ name: "name" }).pipe(
      Args.withDescription("Your player name; your login name if not given."),
      Args.optional
    ),
    mapFile: Options.file("map").pipe(
      Options.withDescription("The map file; without one, the built-in example map of the spec."),
      Options.optional
    ),
    seed: Options.text("seed").pipe(
      Options.withDescription("A non-negative integer that makes the game reproducible."),
      Options.optional
    ),
    port: portOption,
    host: hostOption,
    log
  },
  play
).pipe(Command.withDescription("Start a game on this machine and play it here; friends can join it."))
