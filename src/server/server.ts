import { Deferred, Effect, Either, Exit, Random, Runtime } from "effect"
import {
  type ClientId,
  type Envelope,
  type GameState,
  join,
  newGame,
  pressKey,
  type Rules,
  shutDown,
  spectate,
  specRules,
  type Step
} from "../core/game.js"
import type { GameMap } from "../core/map.js"
import { gameOverSummary, Views } from "../core/render.js"
import { decodeClientMessage, type Dialect, encodeServerMessage, excerpt, type ServerMessage } from "../protocol/messages.js"
import { type Datagram, type Endpoint, UdpSocket } from "../net/udp.js"

export interface ServerOptions {
  readonly map: GameMap
  readonly seed: number
  readonly dialect?: Dialect
  /** Called with each new state, in order: for tests now, recordings later. */
  readonly observe?: (state: GameState) => void
}

export interface GameResult {
  readonly summary: string
  readonly state: GameState
}

export const rulesFor = (dialect: Dialect): Rules =>
  dialect === "spec" ? specRules : { ...specRules, sight: "roomSpotsOnly" }

const clientKey = (from: Endpoint): ClientId =>
  from.address.includes(":") ? `[${from.address}]:${from.port}` : `${from.address}:${from.port}`

/**
 * The game server: datagrams in, one at a time and in order; each decoded, handed to the
 * core, and the core's notices sent out. Returns when all gold is collected. Interrupting
 * it (SIGINT, SIGTERM, the end of `nuggets play`) tells every client to quit.
 */
export const runServer = (options: ServerOptions): Effect.Effect<GameResult, never, UdpSocket> =>
  Effect.gen(function*() {
    const dialect = options.dialect ?? "spec"
    const socket = yield* UdpSocket
    let state = yield* newGame(options.map, rulesFor(dialect))
    const views = new Views(state)
    const endpoints = new Map<ClientId, Endpoint>()
    // Runs an Effect at once with this fiber's services: the seeded Random, the loggers.
    const runNow = Runtime.runSync(yield* Effect.runtime<never>())

    const message = (msg: ServerMessage) => encodeServerMessage(msg, dialect)
    const deliver = (step: Step) => {
      if (step.state === state && step.out.length === 0) return
      state = step.state
      // In place when every earlier DISPLAY has left: no copy, no allocation per keystroke.
      views.advance(state, { reuse: socket.allSent() })
      options.observe?.(state)
      let summary: string | undefined
      for (const envelope of step.out) {
        const to = endpoints.get(envelope.to)
        if (to) socket.sendNow(datagramFor(envelope, () => summary ??= gameOverSummary(state)), to)
      }
    }
    const datagramFor = (envelope: Envelope, summary: () => string): Uint8Array | string => {
      const notice = envelope.notice
      switch (notice._tag) {
        case "Display":
          return views.display(envelope.viewer)
        case "GameOver":
          return message({ _tag: "GameOver", summary: summary() })
        default:
          return message(notice)
      }
    }
    const reply = (to: Endpoint, msg: ServerMessage) => socket.sendNow(message(msg), to)

    const handle = (datagram: Datagram): void => {
      const from = { address: datagram.address, port: datagram.port }
      const client = clientKey(from)
      const decoded = decodeClientMessage(datagram.data)
      if (Either.isLeft(decoded)) {
        const error = decoded.left
        // Only a malformed PLAY/KEY/SPECTATE is answered: answering anything else could
        // start an endless exchange with a peer that also answers what it does not know.
        if (error.kind === "malformed") reply(from, { _tag: "No", reason: error.reason })
        return runNow(Effect.logWarning(`${client}: ignored datagram of ${datagram.data.length} bytes: ${error.reason}`))
      }
      const request = decoded.right
      switch (request._tag) {
        case "Play": {
          // Joining draws a spot at random: the one transition that needs the Random service.
          const joined = runNow(Effect.either(join(state, client, request.name)))
          if (Either.isRight(joined)) {
            endpoints.set(client, from)
            deliver(joined.right)
            const player = joined.right.state.players.at(-1)!
            return runNow(Effect.logInfo(`${client}: joined as ${player.letter} (${excerpt(player.name)})`))
          }
          const error = joined.left
          reply(
            from,
            error._tag === "EmptyName"
              ? { _tag: "Quit", reason: error.message }
              : error._tag === "GameFull" && dialect !== "spec"
              ? { _tag: "Quit", reason: "Game is full: no more players can join." }
              : { _tag: "No", reason: error.message }
          )
          return runNow(Effect.logInfo(`${client}: PLAY refused: ${error.message}`))
        }
        case "Spectate": {
          const watched = spectate(state, client)
          if (Either.isLeft(watched)) {
            reply(from, { _tag: "No", reason: watched.left.message })
            return runNow(Effect.logInfo(`${client}: SPECTATE refused: ${watched.left.message}`))
          }
          endpoints.set(client, from)
          deliver(watched.right)
          return runNow(Effect.logInfo(`${client}: spectating`))
        }
        case "Key": {
          const pressed = pressKey(state, client, request.key)
          if (Either.isLeft(pressed)) {
            reply(from, { _tag: "No", reason: pressed.left.message })
            return runNow(Effect.logDebug(`${client}: KEY ${excerpt(request.key)} refused: ${pressed.left.message}`))
          }
          deliver(pressed.right)
          if (request.key === "Q") runNow(Effect.logInfo(`${client}: quit`))
        }
      }
    }

    // Each datagram is handled to the end as it arrives, in the socket's own callback: one
    // at a time and in order, like a loop over a stream, but without a fiber hand-off per
    // datagram, which measured at half the server's time per keystroke.
    const finished = yield* Deferred.make<void>()
    yield* socket.onDatagram((datagram) => {
      if (state.over) return
      try {
        handle(datagram)
      } catch (defect) {
        // A bug in handling one datagram must not end the game for everyone.
        runNow(Effect.logError(`${clientKey(datagram)}: internal error while handling a datagram`, defect))
      }
      if (state.over) Deferred.unsafeDone(finished, Exit.void)
    })
    yield* Deferred.await(finished).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => deliver(shutDown(state, "server shutting down"))).pipe(
          Effect.zipRight(Effect.logInfo("shutting down: every client was told to quit"))
        )
      )
    )
    const summary = gameOverSummary(state)
    yield* Effect.logInfo(`game over:\n${summary}`)
    return { summary, state }
  }).pipe(Effect.scoped, Effect.withRandom(Random.make(options.seed)))
