import { Args, Command, Options } from "@effect/cli"
import { Console, Context, Effect, Fiber, Layer, Option } from "effect"
import { isIPv6 } from "node:net"
import { hostname, userInfo } from "node:os"
import { defaultAnswerTimeout, joinGame } from "../client/session.js"
import { terminalLayer } from "../client/terminal.js"
import type { Variant } from "../core/game.js"
import { udpLayer, UdpSocket } from "../net/udp.js"
import { runServer } from "../server/server.js"
import { CliError } from "./error.js"
import {
  gameSetup,
  hostOption,
  logOption,
  portOption,
  reportExit,
  rulesFor,
  screenLogging,
  variantOption
} from "./shared.js"

/** The address this process's own client uses to reach a server bound to `host`. */
const localAddress = (host: string) => host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host

const loginName = () => {
  try {
    return userInfo().username || "player"
  } catch {
    return "player"
  }
}

interface PlayOptions {
  readonly name: Option.Option<string>
  readonly mapFile: Option.Option<string>
  readonly seed: Option.Option<string>
  readonly port: number
  readonly host: string
  readonly variant: Variant
  readonly log: Option.Option<string>
}

/**
 * A server in this process and the player in this terminal. When the player leaves or the
 * game ends, the server stops too, telling anyone else still playing.
 */
const play = (options: PlayOptions) =>
  Effect.gen(function*() {
    const { map, port, seed } = yield* gameSetup(options)
    const name = Option.getOrElse(options.name, loginName)
    const exit = yield* Effect.scoped(
      Effect.gen(function*() {
        const socket = yield* Layer.build(
          udpLayer({ port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" })
        ).pipe(Effect.map(Context.get(UdpSocket)))
        const server = yield* runServer({ map, seed, rules: rulesFor("spec", options.variant) }).pipe(
          Effect.provideService(UdpSocket, socket),
          Effect.forkScoped
        )
        yield* Console.log(
          `Nuggets server on port ${socket.local.port}; friends join with: ` +
            `nuggets join ${hostname()} ${socket.local.port} NAME`
        )
        const exit = yield* joinGame(
          {
            host: localAddress(options.host),
            port: socket.local.port,
            request: { _tag: "Player", name },
            answerTimeout: defaultAnswerTimeout
          },
          terminalLayer
        )
        yield* Fiber.interrupt(server)
        return exit
      })
    )
    yield* reportExit(exit)
  }).pipe(
    Effect.provide(screenLogging(options.log)),
    Effect.catchTags({
      ConnectError: (error) => new CliError({ message: error.message }),
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
    variant: variantOption,
    log: logOption
  },
  play
).pipe(Command.withDescription("Start a game on this machine and play it here; friends can join it."))
