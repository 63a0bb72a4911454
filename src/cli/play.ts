import { Args, Command, Options } from "@effect/cli"
import { Console, Context, Deferred, Effect, Fiber, Layer, Option } from "effect"
import { isIPv6 } from "node:net"
import { hostname, userInfo } from "node:os"
import { joinGame } from "../client/session.js"
import { terminalLayer } from "../client/terminal.js"
import type { Variant } from "../core/rules.js"
import { udpLayer, UdpSocket } from "../net/udp.js"
import { runServer } from "../server/server.js"
import { startWeb } from "../web/live.js"
import { CliError } from "./error.js"
import { leaf, wholeNumberOption } from "./runner.js"
import {
  checkName,
  gameSetup,
  hostHelp,
  hostOption,
  keysHelp,
  logHelp,
  logOption,
  maxSeed,
  noColorHelp,
  noColorOption,
  portHelp,
  portOption,
  recordHelp,
  recordOption,
  reportExit,
  rulesFor,
  screenLogging,
  variantHelp,
  variantOption,
  webAddress,
  webHelp,
  webOption
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
  readonly seed: Option.Option<number>
  readonly port: number
  readonly host: string
  readonly variant: Variant
  readonly record: Option.Option<string>
  readonly log: Option.Option<string>
  readonly noColor: boolean
  readonly web: Option.Option<string>
}

/**
 * A server in this process and the player in this terminal. When the player leaves or the
 * game ends, the server stops too, telling anyone else still playing.
 */
const play = (options: PlayOptions) =>
  Effect.gen(function*() {
    const { map, seed } = yield* gameSetup(options)
    const name = yield* checkName(Option.getOrElse(options.name, loginName))
    const web = yield* webAddress(options.web)
    const exit = yield* Effect.scoped(
      Effect.gen(function*() {
        const socket = yield* Layer.build(
          udpLayer({ port: options.port, host: options.host, family: isIPv6(options.host) ? "udp6" : "udp4" })
        ).pipe(Effect.map(Context.get(UdpSocket)))
        const ready = yield* Deferred.make<Option.Option<string>>()
        const server = yield* runServer({
          map,
          seed,
          rules: rulesFor("spec", options.variant),
          ...Option.match(options.record, { onNone: () => ({}), onSome: (record) => ({ record }) }),
          started: (host) =>
            Option.match(web, {
              onNone: () => Effect.succeed(Option.none<string>()),
              onSome: (address) => startWeb(host, address).pipe(Effect.map(({ url }) => Option.some(url)))
            }).pipe(Effect.flatMap((page) => Deferred.succeed(ready, page)))
        }).pipe(Effect.provideService(UdpSocket, socket), Effect.forkScoped)
        // The server is up, or it failed to start (it could not open the recording or the web page, say).
        const page = yield* Effect.raceFirst(
          Deferred.await(ready),
          Fiber.join(server).pipe(Effect.as(Option.none<string>()))
        )
        yield* Effect.logInfo(`playing a ${map.rows}x${map.cols} map, seed ${seed}`)
        const port = socket.local.port
        const joinLine = `nuggets join ${hostname()} ${port} NAME`
        yield* Console.log(`Nuggets server on port ${port}; friends join with: ${joinLine}`)
        if (Option.isSome(page)) yield* Console.log(`Watch and play in a browser: ${page.value}`)
        const exit = yield* joinGame(
          {
            host: localAddress(options.host),
            port: socket.local.port,
            request: { _tag: "Player", name },
            hint: [`friends join with: ${joinLine}`, `join: ${joinLine}`, `join: ${hostname()} ${port}`, `port ${port}`]
          },
          terminalLayer({ noColor: options.noColor })
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
      UdpError: (error) => new CliError({ message: error.message }),
      RecordingError: (error) => new CliError({ message: error.message }),
      WebError: (error) => new CliError({ message: error.message })
    })
  )

const playCommand = Command.make(
  "play",
  {
    name: Args.text({ name: "NAME" }).pipe(Args.optional),
    mapFile: Options.text("map").pipe(Options.optional),
    seed: wholeNumberOption("seed", 0, maxSeed).pipe(Options.optional),
    port: portOption,
    host: hostOption,
    variant: variantOption,
    record: recordOption,
    log: logOption,
    noColor: noColorOption,
    web: webOption
  },
  play
)

export const playNode = leaf(playCommand, {
  summary: "Start a game on this machine and play it here; friends can join it.",
  usage: "[options] [NAME]",
  args: [{ term: "NAME", text: "your player name", default: "your login name" }],
  options: [
    { term: "--map FILE", text: "the map file", default: "the spec's example map, built in" },
    { term: "--seed N", text: "a whole number that makes the game reproducible", default: "the clock" },
    portHelp,
    hostHelp,
    variantHelp,
    recordHelp,
    webHelp,
    logHelp,
    noColorHelp
  ],
  more: keysHelp
})
