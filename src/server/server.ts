import { Duration, Effect, Random, type Scope } from "effect"
import type { Rules } from "../core/rules.js"
import type { ClientId } from "../core/state.js"
import type { GameMap } from "../core/map.js"
import { type Endpoint, UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import { type RecordingError, recordGame } from "../recording/writer.js"
import { type GameHost, type GameResult, type Handled, makeGameHost, type Peer } from "./host.js"

export type { GameResult } from "./host.js"

export interface ServerOptions<E = never> {
  readonly map: GameMap
  readonly seed: number
  readonly rules?: Rules
  readonly dialect?: Dialect
  /** Called after each request the game took, in order: for tests, recordings, watchers. */
  readonly observe?: (handled: Handled) => void
  /** Records the game to this file as it is played. */
  readonly record?: string
  /** The recording may replace a file that exists. */
  readonly overwriteRecording?: boolean
  /**
   * Called once the game is set up (and its recording started), before the first
   * datagram: to announce the port, or for other ways in, such as the web. It runs in
   * the game's scope: what it opens lasts as long as the game.
   */
  readonly started?: (host: GameHost) => Effect.Effect<unknown, E, Scope.Scope>
  /** Called at game over, before the server lingers: to print the summary at once. */
  readonly ended?: (result: GameResult) => Effect.Effect<void>
  /** How long the server stays after game over, answering latecomers with GAMEOVER. */
  readonly linger?: Duration.DurationInput
  /** How far apart the copies of GAMEOVER and of a QUIT no one asked for go out. */
  readonly lastWordsSpacing?: Duration.DurationInput
  /** Keys a second each client may press (see `KeyLimit`). */
  readonly keysPerSecond?: number
  /** A player silent this long is counted as having quit; never, when not given. */
  readonly idleTimeout?: Duration.DurationInput
}

/** Long enough for a client that lost every GAMEOVER to ask again; well under the 5 s a CS50 checker waits. */
export const defaultLinger = Duration.seconds(2)

/** The shell's name for a UDP client: its address and port. */
const clientKey = (from: Endpoint): ClientId =>
  from.address.includes(":") ? `[${from.address}]:${from.port}` : `${from.address}:${from.port}`

/**
 * The game server over UDP: datagrams in, one at a time and in order, each handled to the
 * end by the game host. Returns a little while after all gold is collected (see `linger`).
 * Interrupting it (SIGINT, SIGTERM, the end of `nuggets play`) tells every client to quit.
 */
export const runServer = <E = never>(options: ServerOptions<E>): Effect.Effect<GameResult, RecordingError | E, UdpSocket> =>
  Effect.gen(function*() {
    const socket = yield* UdpSocket
    const host = yield* makeGameHost({
      map: options.map,
      ...(options.rules ? { rules: options.rules } : {}),
      ...(options.dialect ? { dialect: options.dialect } : {}),
      allSent: socket.allSent,
      ...(options.lastWordsSpacing !== undefined ? { lastWordsSpacing: options.lastWordsSpacing } : {}),
      ...(options.keysPerSecond !== undefined ? { keysPerSecond: options.keysPerSecond } : {}),
      ...(options.idleTimeout !== undefined ? { idleTimeout: options.idleTimeout } : {})
    })
    if (options.observe) host.onHandled(options.observe)
    if (options.record !== undefined) {
      yield* recordGame(host, {
        path: options.record,
        seed: options.seed,
        rules: host.state().rules,
        dialect: options.dialect ?? "spec",
        map: options.map,
        overwrite: options.overwriteRecording ?? false
      })
    }
    /** One peer per address, made once: the same few clients send thousands of datagrams. */
    const peers = new Map<string, Peer>()
    const peerAt = (from: Endpoint): Peer => {
      const id = clientKey(from)
      let peer = peers.get(id)
      if (peer === undefined) {
        const to = { address: from.address, port: from.port }
        peer = { id, send: (data) => socket.sendNow(data, to), keepsBytes: false }
        if (peers.size >= 65536) peers.clear()
        peers.set(id, peer)
      }
      return peer
    }
    // Each datagram is handled to the end as it arrives, in the socket's own callback: one
    // at a time and in order, like a loop over a stream, but without a fiber hand-off per
    // datagram, which measured at half the server's time per keystroke.
    yield* socket.onDatagram((datagram) => host.receive(peerAt(datagram), datagram.data))
    // Announced only now: a client that heard of the port may send at once.
    if (options.started) yield* options.started(host)
    const result = yield* host.finished.pipe(Effect.onInterrupt(() => host.shutDown))
    yield* Effect.forEach(result.summary.trimEnd().split("\n"), (line) => Effect.logInfo(`game over: ${line}`))
    if (options.ended) yield* options.ended(result)
    yield* host.lastWordsSent
    yield* Effect.sleep(options.linger ?? defaultLinger)
    return result
  }).pipe(Effect.scoped, Effect.withRandom(Random.make(options.seed)))
