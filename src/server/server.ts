import { Deferred, Effect, Either, Exit, Random, Runtime } from "effect"
import { PlayerLetters } from "../core/constants.js"
import {
  addPlayer,
  addSpectator,
  applyKey,
  type ClientId,
  type Envelope,
  newGame,
  type Refusal,
  type Rules,
  shutDown,
  specRules,
  standings,
  type Transition
} from "../core/game.js"
import type { GameMap } from "../core/map.js"
import { type Datagram, type Endpoint, UdpSocket } from "../net/udp.js"
import {
  type Dialect,
  gameOverMessage,
  malformedMessage,
  quitText,
  refusalMessage,
  refusalText,
  summaryText
} from "../protocol/dialect.js"
import { decodeClientMessage, encodeServerMessage, excerpt, type ServerMessage } from "../protocol/messages.js"
import { DisplayBuffers } from "./views.js"

export interface ServerOptions {
  readonly map: GameMap
  readonly seed: number
  readonly rules?: Rules
  readonly dialect?: Dialect
  /** Called with each transition, in order: for tests now, recordings later. */
  readonly observe?: (transition: Transition) => void
}

export interface GameResult {
  readonly summary: string
}

const letterOf = (index: number) => PlayerLetters[index]!

/** The shell's name for a client: its address and port. */
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
    let state = yield* newGame(options.map, options.rules ?? specRules)
    const buffers = new DisplayBuffers(state)
    /** Where each client that joined is reached. */
    const endpoints = new Map<ClientId, Endpoint>()

    const send = (to: Endpoint, message: ServerMessage) => socket.sendNow(encodeServerMessage(message), to)

    /** Makes the transition's state current and sends its notices, each DISPLAY from the viewer's buffer. */
    const deliver = (transition: Transition) => {
      if (transition.state === state && transition.notices.length === 0) return
      state = transition.state
      // In place when every earlier DISPLAY has left: no copy, no allocation per keystroke.
      buffers.advance(transition, { reuse: socket.allSent() })
      options.observe?.(transition)
      for (const envelope of transition.notices) {
        const to = endpoints.get(envelope.to)
        if (to) socket.sendNow(datagramFor(envelope), to)
      }
    }
    let summary: string | undefined
    const datagramFor = ({ notice, viewer }: Envelope): Uint8Array | string => {
      switch (notice._tag) {
        case "Display":
          return buffers.display(viewer)
        case "GameOver":
          return encodeServerMessage(gameOverMessage(dialect, summary ??= summaryText(standings(state))))
        case "Quit":
          return encodeServerMessage({ _tag: "Quit", reason: quitText[notice.reason] })
        default:
          return encodeServerMessage(notice)
      }
    }
    const refuse = (from: Endpoint, what: string, refusal: Refusal) => {
      send(from, refusalMessage(dialect, refusal))
      return Effect.logInfo(`${clientKey(from)}: ${what} refused: ${refusalText(refusal)}`)
    }

    /**
     * One datagram: decoded and handed to the core. A keystroke returns nothing to run;
     * what else happened returns its log entry.
     */
    const handle = (datagram: Datagram): Effect.Effect<void> | undefined => {
      const from: Endpoint = { address: datagram.address, port: datagram.port }
      const client = clientKey(from)
      const decoded = decodeClientMessage(datagram.data)
      if (Either.isLeft(decoded)) {
        const error = decoded.left
        // Only a malformed PLAY/KEY/SPECTATE is answered: answering anything else could
        // start an endless exchange with a peer that also answers what it does not know.
        if (error.kind === "malformed") send(from, malformedMessage(dialect, error.reason))
        return Effect.logWarning(`${client}: ignored datagram of ${datagram.data.length} bytes: ${error.reason}`)
      }
      const request = decoded.right
      switch (request._tag) {
        case "Key": {
          const pressed = applyKey(state, client, request.key)
          if (Either.isLeft(pressed)) {
            send(from, refusalMessage(dialect, pressed.left))
            return Effect.logDebug(`${client}: KEY ${excerpt(request.key)} refused: ${refusalText(pressed.left)}`)
          }
          deliver(pressed.right)
          if (request.key === "Q") return Effect.logInfo(`${client}: quit`)
          const { thefts } = pressed.right.changes
          return thefts.length === 0 ? undefined : Effect.forEach(thefts, ({ nuggets, thief, victim }) =>
            Effect.logInfo(`${letterOf(thief)} took ${nuggets} nuggets from ${letterOf(victim)}`))
        }
        case "Play":
          // Joining draws a spot at random: the one transition that needs the Random service.
          return Effect.either(addPlayer(state, client, request.name)).pipe(
            Effect.flatMap(Either.match({
              onLeft: (refusal) => refuse(from, "PLAY", refusal),
              onRight: (joined) => {
                endpoints.set(client, from)
                deliver(joined)
                const player = joined.state.players.at(-1)!
                return Effect.logInfo(`${client}: joined as ${player.letter} (${excerpt(player.name)})`)
              }
            }))
          )
        case "Spectate": {
          const watching = addSpectator(state, client)
          if (Either.isLeft(watching)) return refuse(from, "SPECTATE", watching.left)
          endpoints.set(client, from)
          deliver(watching.right)
          return Effect.logInfo(`${client}: spectating`)
        }
      }
    }

    // Each datagram is handled to the end as it arrives, in the socket's own callback: one
    // at a time and in order, like a loop over a stream, but without a fiber hand-off per
    // datagram, which measured at half the server's time per keystroke. What `handle`
    // returns runs at once with this fiber's services (the seeded Random, the loggers).
    const runNow = Runtime.runSync(yield* Effect.runtime<never>())
    const finished = yield* Deferred.make<void>()
    yield* socket.onDatagram((datagram) => {
      if (state.over) return
      try {
        const then = handle(datagram)
        if (then !== undefined) runNow(then)
      } catch (defect) {
        // A bug in handling one datagram must not end the game for everyone.
        runNow(Effect.logError(`${clientKey(datagram)}: internal error while handling a datagram`, defect))
      }
      if (state.over) Deferred.unsafeDone(finished, Exit.void)
    })
    yield* Deferred.await(finished).pipe(
      Effect.onInterrupt(() =>
        Effect.sync(() => deliver(shutDown(state))).pipe(
          Effect.zipRight(Effect.logInfo("shutting down: every client was told to quit"))
        )
      )
    )
    const result = { summary: summary ?? summaryText(standings(state)) }
    yield* Effect.logInfo(`game over:\n${result.summary}`)
    return result
  }).pipe(Effect.scoped, Effect.withRandom(Random.make(options.seed)))
