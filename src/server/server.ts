import { Effect, Either, Random, Stream } from "effect"
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

    const message = (msg: ServerMessage) => encodeServerMessage(msg, dialect)
    const deliver = (step: Step) => {
      if (step.state === state && step.out.length === 0) return
      state = step.state
      views.advance(state)
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

    const handle = (datagram: Datagram): Effect.Effect<void> => {
      const from = { address: datagram.address, port: datagram.port }
      const client = clientKey(from)
      const decoded = decodeClientMessage(datagram.data)
      if (Either.isLeft(decoded)) {
        const error = decoded.left
        // Only a malformed PLAY/KEY/SPECTATE is answered: answering anything else could
        // start an endless exchange with a peer that also answers what it does not know.
        if (error.kind === "malformed") reply(from, { _tag: "No", reason: error.reason })
        return Effect.logWarning(`${client}: ignored datagram of ${datagram.data.length} bytes: ${error.reason}`)
      }
      const request = decoded.right
      endpoints.set(client, from)
      switch (request._tag) {
        case "Play":
          return join(state, client, request.name).pipe(
            Effect.tap((step) => {
              deliver(step)
              const player = step.state.players.at(-1)!
              return Effect.logInfo(`${client}: joined as ${player.letter} (${excerpt(player.name)})`)
            }),
            Effect.catchAll((error) => {
              switch (error._tag) {
                case "EmptyName":
                  reply(from, { _tag: "Quit", reason: error.message })
                  break
                case "GameFull":
                  reply(
                    from,
                    dialect === "spec"
                      ? { _tag: "No", reason: error.message }
                      : { _tag: "Quit", reason: "Game is full: no more players can join." }
                  )
                  break
                default:
                  reply(from, { _tag: "No", reason: error.message })
              }
              return Effect.logInfo(`${client}: PLAY refused: ${error.message}`)
            })
          )
        case "Spectate":
          return spectate(state, client).pipe(
            Effect.tap((step) => {
              deliver(step)
              return Effect.logInfo(`${client}: spectating`)
            }),
            Effect.catchAll((error) => {
              reply(from, { _tag: "No", reason: error.message })
              return Effect.logInfo(`${client}: SPECTATE refused: ${error.message}`)
            })
          )
        case "Key":
          return pressKey(state, client, request.key).pipe(
            Effect.tap((step) => {
              deliver(step)
              return request.key === "Q" ? Effect.logInfo(`${client}: quit`) : Effect.void
            }),
            Effect.catchAll((error) => {
              reply(from, { _tag: "No", reason: error.message })
              return Effect.logDebug(`${client}: KEY ${excerpt(request.key)} refused: ${error.message}`)
            })
          )
      }
    }

    const play = socket.incoming.pipe(
      Stream.runForEachWhile((datagram) =>
        handle(datagram).pipe(
          // A bug in handling one datagram must not end the game for everyone.
          Effect.catchAllDefect((defect) =>
            Effect.logError(`${clientKey(datagram)}: internal error while handling a datagram`, defect)
          ),
          Effect.map(() => !state.over)
        )
      )
    )
    yield* play.pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => deliver(shutDown(state, "server shutting down"))).pipe(
          Effect.zipRight(Effect.logInfo("shutting down: every client was told to quit"))
        )
      )
    )
    const summary = gameOverSummary(state)
    yield* Effect.logInfo(`game over:\n${summary}`)
    return { summary, state }
  }).pipe(Effect.withRandom(Random.make(options.seed)))
