import { Console, Context, Duration, Effect, Fiber, Layer, Option } from "effect"
import { hostname, networkInterfaces, userInfo } from "node:os"
import { farewell } from "../client/screen.js"
import { joinGame } from "../client/session.js"
import { terminalLayer } from "../client/terminal.js"
import { standings } from "../core/state.js"
import { lanAddress } from "../net/lan.js"
import { UdpSocket } from "../net/udp.js"
import { LiveGame } from "../server/liveGame.js"
import { gameOver, lingerAfterGame } from "../server/udpLoop.js"
import { LiveWeb } from "../web/gameWeb.js"
import { checkName, keysSections, needsTerminal, printWidth, reportExit } from "./client.js"
import { command, optionalArg, textArg } from "./command.js"
import { checkHostingFiles, hostingLayer, hostingOf } from "./hosting.js"
import { logging, screenLogTarget } from "./logging.js"
import { gameSetup, logWarnings } from "./maps.js"
import { hostingOptions, hostingRules, logLevelOption, logOption, noColorOption, webAddress, webLines } from "./options.js"

/** The address this process's own client uses to reach a server bound to `host`. */
const localAddress = (host: string) => host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host

const loginName = () => {
  try {
    return userInfo().username || "player"
  } catch {
    return "player"
  }
}

export const playNode = command(
  "play",
  {
    summary: "Start a game on this machine and play it here; friends can join it.",
    args: { name: textArg("NAME", "your player name").pipe(optionalArg("your login name")) },
    options: {
      ...hostingOptions,
      log: logOption("the screen is never written over"),
      logLevel: logLevelOption,
      noColor: noColorOption
    },
    rules: hostingRules,
    more: keysSections
  },
  /**
   * A server in this process and the player in this terminal. When the player leaves or the
   * game ends, the server stops too; anyone still playing gets the standings (GAMEOVER).
   */
  (options, given) =>
    Effect.gen(function*() {
      const name = yield* checkName(Option.getOrElse(options.name, loginName))
      const web = yield* webAddress(options.web, options.webName)
      const logTarget = yield* screenLogTarget(options.log, options.logLevel, given)
      yield* checkHostingFiles(options, options.map)
      const setup = yield* gameSetup({ mapFile: options.map, seed: options.seed })
      const { map, seed } = setup
      yield* needsTerminal("play", "'nuggets serve' runs a game without one")
      const playing = Effect.gen(function*() {
        yield* logWarnings(setup)
        // The game is up, or it failed to start (it could not open the recording or the web page, say).
        const context = yield* Layer.build(hostingLayer(hostingOf(options, { map, seed, dialect: "2019" }, web)))
        const socket = Context.get(context, UdpSocket)
        const host = Context.get(context, LiveGame)
        const page = Context.getOption(context, LiveWeb)
        const server = yield* gameOver.pipe(Effect.zipRight(lingerAfterGame()), Effect.provide(context), Effect.forkScoped)
        yield* Effect.logInfo(
          `playing a ${map.rows}x${map.cols} map, seed ${seed}, players silent for ${Duration.format(options.idleTimeout)} count as having quit`
        )
        const port = socket.local.port
        const address = lanAddress(options.host, networkInterfaces(), hostname())
        const joinLine = `nuggets join ${address} ${port} NAME`
        yield* Console.log(`Friends join with: ${joinLine}`)
        if (Option.isSome(page)) yield* Console.log(webLines("Watch and play in a browser", page.value))
        /** The page, for friends when it is open to the network, else for this machine. */
        const pageUrl = Option.map(page, (web) => web.lanUrls[0] ?? web.url)
        const browser = Option.match(pageUrl, {
          onNone: () => "",
          onSome: (url) => Option.exists(page, (web) => web.lanUrls.length > 0) ? `, or in a browser at ${url}` : `; in a browser here: ${url}`
        })
        /** Everyone in the game but the one playing here (`you`, once known): players still in, and the spectator. */
        const friendsBesides = (you?: string) =>
          Effect.sync(() => {
            const state = host.state()
            const playing = state.players.filter((player) => player.active)
            const others = you === undefined ? Math.max(0, playing.length - 1) : playing.filter((player) => player.letter !== you).length
            return others + (state.spectator === undefined ? 0 : 1)
          })
        const friends = friendsBesides()
        const exit = yield* joinGame(
          {
            host: localAddress(options.host),
            port: socket.local.port,
            request: { _tag: "Player", name },
            hint: [
              `Friends join with: ${joinLine}${browser}`,
              `friends join with: ${joinLine}`,
              ...Option.match(pageUrl, { onNone: () => [], onSome: (url) => [`join: ${address} ${port} or ${url}`] }),
              `join: ${joinLine}`,
              `join: ${address} ${port}`,
              `port ${port}`
            ],
            friends
          },
          terminalLayer({ noColor: options.noColor })
        )
        // Leaving ends the game for those still in it: they get the standings, not just a QUIT.
        const endedForFriends = !host.state().over && (yield* friendsBesides("you" in exit ? exit.you : undefined)) > 0
        if (endedForFriends) yield* host.endGame
        yield* Fiber.interrupt(server)
        const state = host.state()
        return {
          exit,
          standings: endedForFriends ? Option.some({ summary: standings(state), nuggetsLeft: state.goldRemaining }) : Option.none()
        }
      })
      const { exit, standings: final } = yield* Effect.scoped(playing).pipe(Effect.provide(logging(logTarget)))
      yield* reportExit(exit)
      if (Option.isSome(final)) {
        const you = "you" in exit ? exit.you : undefined
        yield* Console.log(farewell({ _tag: "GameOver", ...final.value, ...(you === undefined ? {} : { you }) }, printWidth()))
      }
    })
)
