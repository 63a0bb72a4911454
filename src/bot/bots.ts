import { Clock, Deferred, Duration, Effect, Either, Queue, Random, Schedule, Stream } from "effect"
import { type JoinError, resolveHost } from "../client/join.js"
import { type Endpoint, makeUdpSocket, type UdpError } from "../net/udp.js"
import { decodeServerMessage, encodeClientMessage, excerpt } from "../protocol/messages.js"
import { type Brain, decide, type Ending, newBrain, observe, observeDisplay, type Strategy } from "./brain.js"

const displayHeader = Buffer.from("DISPLAY\n")
const isDisplay = (data: Uint8Array) =>
  data.length >= displayHeader.length && Buffer.compare(data.subarray(0, displayHeader.length), displayHeader) === 0

export interface BotsOptions {
  readonly host: string
  readonly port: number
  readonly count: number
  readonly strategy: Strategy
  readonly seed: number
  /** Keys per second, per bot. */
  readonly rate: number
  /** The name bot `index` (from 0) plays under; `bot-1`, `bot-2`, ... by default. */
  readonly name?: (index: number) => string
  /** How long to wait for the server's answer to PLAY. */
  readonly answerTimeout?: Duration.DurationInput
  /** How long a bot goes on pressing keys with no word from the server before giving up. */
  readonly silenceTimeout?: Duration.DurationInput
}

export type Outcome = Ending | { readonly _tag: "NoAnswer" } | { readonly _tag: "Lost" }

export interface BotResult {
  readonly name: string
  readonly letter: string | undefined
  readonly purse: number
  readonly outcome: Outcome
}

export const defaultName = (index: number) => `bot-${index + 1}`

/**
 * `count` bots, each on its own socket (so each is its own client to the server), play
 * until the game ends or they are told to quit. Resolves with one result per bot.
 */
export const runBots = (options: BotsOptions): Effect.Effect<ReadonlyArray<BotResult>, JoinError | UdpError> =>
  Effect.gen(function*() {
    // Once for all bots, rather than a lookup per datagram sent.
    const { address, family } = yield* resolveHost(options.host)
    return yield* Effect.forEach(
      Array.from({ length: options.count }, (_, index) => index),
      (index) => playOne(options, { address, port: options.port }, family, index),
      { concurrency: "unbounded" }
    )
  })

const playOne = (
  options: BotsOptions,
  server: Endpoint,
  family: "udp4" | "udp6",
  index: number
): Effect.Effect<BotResult, UdpError> =>
  Effect.scoped(Effect.gen(function*() {
    const name = (options.name ?? defaultName)(index)
    // A bot acts on the latest DISPLAY only; a short queue bounds memory if it falls behind.
    const socket = yield* makeUdpSocket({ family, backlog: 256 })
    const rng = Random.make(`${options.seed}/${index}`)
    const interval = Duration.millis(1000 / options.rate)
    // After a key, wait for it to show before deciding again, but not for ever: a key
    // can be overtaken (someone swapped places with this bot first) and not move at all.
    const moveTimeout = Duration.millis(Math.min(1000, Math.max(50, 3000 / options.rate)))
    const silenceMillis = Duration.toMillis(options.silenceTimeout ?? "10 seconds")

    let brain: Brain = newBrain(options.strategy)
    let lastHeard = 0
    const answered = yield* Deferred.make<void>()
    const ended = yield* Deferred.make<Outcome>()
    const moved = yield* Queue.sliding<void>(1)

    const hear = (data: Uint8Array) =>
      Effect.gen(function*() {
        const before = brain
        lastHeard = yield* Clock.currentTimeMillis
        yield* Deferred.succeed(answered, undefined)
        if (isDisplay(data)) {
          // Most of what a bot hears: taken as bytes, with no decoding.
          brain = observeDisplay(brain, data.subarray(displayHeader.length))
          if (brain.view?.position !== before.view?.position) yield* Queue.offer(moved, undefined)
          return
        }
        const decoded = decodeServerMessage(data)
        if (Either.isLeft(decoded)) {
          yield* Effect.logWarning(`${name}: unreadable message from the server: ${decoded.left.reason}`)
          return
        }
        const message = decoded.right
        brain = observe(brain, message)
        if (message._tag === "Ok") yield* Effect.logInfo(`${name}: joined as ${message.letter}`)
        if ((message._tag === "No" || message._tag === "Error") && !brain.ended) {
          yield* Effect.logDebug(`${name}: the server said no: ${excerpt(message.reason)}`)
        }
        if (brain.ended && !before.ended) {
          yield* Effect.logInfo(`${name}: ${describe(brain.ended)}`)
          yield* Deferred.succeed(ended, brain.ended)
        }
      })
    // Not Stream.runForEachWhile: in effect 3.22 it holds on to every element it has seen.
    yield* socket.incoming.pipe(Stream.runForEach((datagram) => hear(datagram.data)), Effect.forkScoped)

    const pressKeys = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      if (now - lastHeard > silenceMillis) {
        yield* Effect.logWarning(`${name}: no word from the server for ${silenceMillis / 1000} s; giving up`)
        return yield* Deferred.succeed(ended, { _tag: "Lost" })
      }
      const decision = yield* decide(brain, rng)
      // Keep what the decision learned, but not over news that arrived meanwhile.
      brain = brain.view === decision.brain.view ? { ...brain, memory: decision.brain.memory } : brain
      if (decision.key === undefined) return
      yield* Queue.takeAll(moved)
      socket.sendNow(encodeClientMessage({ _tag: "Key", key: decision.key }), server)
      yield* Queue.take(moved).pipe(Effect.timeout(moveTimeout), Effect.ignore)
    }).pipe(Effect.repeat(Schedule.fixed(interval)))

    yield* socket.send(encodeClientMessage({ _tag: "Play", name }), server)
    const heard = yield* Deferred.await(answered).pipe(Effect.timeout(options.answerTimeout ?? "3 seconds"), Effect.option)
    if (heard._tag === "None") {
      yield* Effect.logWarning(`${name}: no answer from ${options.host}:${options.port}`)
      return result(name, brain, { _tag: "NoAnswer" })
    }
    const outcome = yield* Effect.raceFirst(Deferred.await(ended), pressKeys.pipe(Effect.zipRight(Effect.never))).pipe(
      // Interrupted (Ctrl-C): leave the game politely rather than vanish.
      Effect.onInterrupt(() =>
        brain.letter !== undefined && !brain.ended
          ? socket.send(encodeClientMessage({ _tag: "Key", key: "Q" }), server)
          : Effect.void
      )
    )
    return result(name, brain, outcome)
  }))

const result = (name: string, brain: Brain, outcome: Outcome): BotResult => ({
  name,
  letter: brain.letter,
  purse: brain.purse,
  outcome
})

const describe = (ending: Ending): string => {
  switch (ending._tag) {
    case "GameOver":
      return "game over"
    case "Quit":
      return `told to quit${ending.reason ? `: ${ending.reason}` : ""}`
    case "Refused":
      return `refused${ending.reason ? `: ${ending.reason}` : ""}`
  }
}

/** One line per bot: its letter, purse and name, then how it ended. */
export const resultLine = (result: BotResult): string => {
  const outcome = result.outcome
  const how = outcome._tag === "NoAnswer"
    ? "no answer from the server"
    : outcome._tag === "Lost"
    ? "the server stopped answering"
    : describe(outcome)
  return `${result.letter ?? "-"} ${String(result.purse).padStart(5)} ${result.name} (${how})`
}
