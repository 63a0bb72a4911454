import { Context, Duration, Effect, Exit, Fiber, Layer, Logger, LogLevel, Queue, Scope } from "effect"
import * as dgram from "node:dgram"
import { Inbox } from "../inbox.js"
import { owned } from "../owned.js"
import { find, firstStepToward, gridLines } from "./walk.js"
import { hostingLayer } from "../../src/cli/hosting.js"
import type { Took } from "../../src/core/life.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import { UdpSocket } from "../../src/net/udp.js"
import { LiveGame, type ServedGame } from "../../src/server/liveGame.js"
import { gameOver, type GameResult, lingerAfterGame } from "../../src/server/udpLoop.js"
import type { Dialect } from "../../src/protocol/dialect.js"
import { LiveWeb, type WebOptions } from "../../src/web/gameWeb.js"

export interface TestServerOptions extends ServedGame {
  readonly dialect?: Dialect
  readonly record?: string
  readonly overwriteRecording?: boolean
  readonly web?: WebOptions
  /** Called after each request the game took, in order. */
  readonly observe?: (took: Took) => void
  readonly linger?: Duration.DurationInput
}

const quiet = Logger.withMinimumLogLevel(process.env.TEST_LOG ? LogLevel.Debug : LogLevel.None)

/** Calls `observe` with each request `game` takes, in order, from now until the game closes. */
export const observeGame = (game: LiveGame, observe: (took: Took) => void) =>
  Effect.runFork(Effect.scoped(Effect.gen(function*() {
    const events = yield* game.events
    yield* Queue.take(events).pipe(Effect.tap((event) => event._tag === "Took" && observe(event)), Effect.forever)
  })))

/**
 * A game server running in this process on a real loopback socket, composed of the same
 * Layers as `nuggets serve`, taking datagrams once this resolves.
 */
export const startServer = async (options: TestServerOptions) => {
  const scope = Effect.runSync(Scope.make())
  const { dialect = "2019", linger = 0, observe, overwriteRecording = false, record, web, ...game } = options
  const hosting = hostingLayer({
    // Tests of the end wait for the result: no lingering after it, and quick repeats of the last words.
    // Keys as fast as a test sends them: the limit a person never reaches has tests of its own.
    game: { lastWordsSpacing: "20 millis", keysPerSecond: Infinity, ...game, dialect },
    udp: { host: "127.0.0.1" },
    ...(record === undefined ? {} : { record: { path: record, overwrite: overwriteRecording } }),
    ...(web === undefined ? {} : { web })
  }).pipe(Layer.provide(nodeUdpLayer))
  const context = await Effect.runPromise(Layer.buildWithScope(hosting, scope).pipe(quiet))
  const host = Context.get(context, LiveGame)
  if (observe) observeGame(host, observe)
  const fiber = Effect.runFork(gameOver.pipe(Effect.zipLeft(lingerAfterGame(linger)), Effect.provide(context), quiet))
  const result: Promise<GameResult> = Effect.runPromise(Fiber.join(fiber))
  result.catch(() => undefined)
  const stop = () => Effect.runPromise(Fiber.interrupt(fiber).pipe(Effect.zipRight(Scope.close(scope, Exit.void))))
  return {
    port: Context.get(context, UdpSocket).local.port,
    host,
    web: Context.getOption(context, LiveWeb),
    result,
    stop
  }
}

/**
 * A protocol peer on its own UDP socket: sends text, and awaits each message in arrival
 * order with a deadline (never a sleep).
 */
export class TestClient {
  private readonly inbox = new Inbox<string>("the server")
  /** Every message received, taken or not. */
  readonly received = this.inbox.all

  private constructor(private readonly socket: dgram.Socket, private readonly port: number, readonly local: number) {
    socket.on("message", (data) => this.inbox.push(data.toString("utf8")))
  }

  static async open(serverPort: number): Promise<TestClient> {
    const socket = dgram.createSocket("udp4")
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve))
    return new TestClient(socket, serverPort, socket.address().port)
  }

  send(message: string | Uint8Array): void {
    this.socket.send(message, this.port, "127.0.0.1")
  }

  next(timeoutMs = 3000): Promise<string> {
    return this.inbox.next(timeoutMs)
  }

  /** The next message that starts with `prefix`, skipping others (returned in `skipped`). */
  async nextStarting(prefix: string, timeoutMs = 3000): Promise<string> {
    for (;;) {
      const message = await this.next(timeoutMs)
      if (message.startsWith(prefix)) return message
    }
  }

  private closed = false

  close(): Promise<void> {
    if (this.closed) return Promise.resolve()
    this.closed = true
    return new Promise((resolve) => this.socket.close(() => resolve()))
  }
}

export const gridOf = (display: string) => display.slice("DISPLAY\n".length)

/**
 * Walks player A to the nearest gold, as the spectator sees it, until the game ends;
 * returns the game-over message the spectator got (either dialect).
 */
export const collectAllGold = async (player: TestClient, spectator: TestClient, firstDisplay: string, letter = "A") => {
  let view = gridLines(firstDisplay)
  for (let steps = 0; steps < 5000; steps++) {
    const key = firstStepToward(view, find(view, (ch) => ch === letter)[0]!, (ch) => ch === "*")!
    player.send(`KEY ${key}`)
    for (;;) {
      const message = await spectator.next()
      if (message.startsWith("GAMEOVER") || message.startsWith("QUIT GAME OVER")) return message
      if (message.startsWith("DISPLAY")) {
        view = gridLines(gridOf(message))
        break
      }
    }
  }
  throw new Error("the game did not end")
}

/** A server owned by the test that starts it: stopped when the test finishes (see `owned`). */
export const ownedServer = async (options: TestServerOptions) => owned(await startServer(options), (server) => server.stop())

/** A UDP client owned by the test that opens it: closed when the test finishes. */
export const ownedClient = async (port: number) => owned(await TestClient.open(port), (client) => client.close())
