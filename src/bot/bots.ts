import { Clock, Deferred, Duration, Effect, Fiber, Queue, Random, Schedule, Stream } from "effect"
import { arrivalsRead } from "../net/clock.js"
import { type ConnectError, resolveHost } from "../net/resolve.js"
import { type Endpoint, Udp, type UdpError } from "../net/udp.js"
import { encodeClientMessage } from "../protocol/messages.js"
import type { SessionEnd } from "../protocol/reader.js"
import { ownStanding } from "../protocol/summary.js"
import { noteText } from "../client/status.js"
import { endOf, endTitle, nuggetsLeftAt } from "../protocol/endings.js"
import { plural } from "../words.js"
import { type Brain, decide, hear, newBrain, type Strategy } from "./brain.js"

export interface BotsOptions {
  readonly host: string
  readonly port: number
  readonly count: number
  readonly strategy: Strategy
  readonly seed: number
  /** Keys per second, per bot, on average. */
  readonly rate: number
  /** The name bot `index` (from 0) plays under; `bot-1`, `bot-2`, ... by default. */
  readonly name?: (index: number) => string
  /** How long to wait for the server's answer to PLAY (sent again every `joinRetry` meanwhile). */
  readonly answerTimeout?: Duration.DurationInput
  /** How long a bot plays at most before it quits: a game that never ends must not keep it for ever. */
  readonly deadline?: Duration.DurationInput
  /** How long a bot goes on with no word from the server, or nothing it can read, before giving up (10 s). */
  readonly patience?: Duration.DurationInput
}

/**
 * How a bot's game ended: as the server said, with no answer (or its port closed before
 * any came: `Unreachable`), when the server fell silent (or its port closed), when what it
 * sent could not be read, or at the deadline.
 */
export type BotOutcome =
  | SessionEnd
  | { readonly _tag: "NoAnswer" }
  | { readonly _tag: "Unreachable" }
  | { readonly _tag: "Lost" }
  /** No view to play from for a while, the last thing heard unreadable: `reason` says why. */
  | { readonly _tag: "Unreadable"; readonly reason: string }
  | { readonly _tag: "Deadline" }

export interface BotResult {
  readonly name: string
  readonly letter: string | undefined
  readonly purse: number
  readonly outcome: BotOutcome
  /** The nuggets left on the map, as the bot last heard. */
  readonly remaining: number | undefined
}

export const botName = (index: number) => `bot-${index + 1}`

const defaultPatience = Duration.seconds(10)

/** How long the datagrams read after a closed port's report may still end the game otherwise. */
const closedPortGrace = Duration.millis(100)

/**
 * PLAY goes out again while nothing at all has come back: after 1 s, then 2, then every
 * 4. Longer than a slow round trip, since most CS50 servers make a new player for every
 * PLAY (see the client's `Timings.joinRetry`).
 */
const joinRetries = Schedule.exponential("1 second").pipe(Schedule.union(Schedule.spaced("4 seconds")))

/** A bot that leaves sends Q again this often until QUIT comes, for this long: a lost Q must not leave a ghost. */
const quitRetry = Duration.millis(300)
const quitTimeout = Duration.seconds(3)

export const defaultDeadline = Duration.minutes(10)

/**
 * `count` bots, each on its own socket (so each is its own client to the server), play
 * until the game ends or they are told to quit. Resolves with one result per bot.
 */
export const runBots = (options: BotsOptions): Effect.Effect<ReadonlyArray<BotResult>, ConnectError | UdpError, Udp> =>
  Effect.gen(function*() {
    // Once for all bots, rather than a lookup per datagram sent.
    const { address } = yield* resolveHost(options.host)
    yield* Effect.logInfo(
      `${plural(options.count, `${options.strategy} bot`)} joining ${options.host}:${options.port}, ` +
        `${options.rate} keys/s each, seed ${options.seed}`
    )
    return yield* Effect.forEach(
      Array.from({ length: options.count }, (_, index) => index),
      (index) => playOne(options, { address, port: options.port }, index),
      { concurrency: "unbounded" }
    )
  })

const playOne = (
  options: BotsOptions,
  server: Endpoint,
  index: number
): Effect.Effect<BotResult, UdpError, Udp> =>
  Effect.scoped(Effect.gen(function*() {
    const name = (options.name ?? botName)(index)
    // A bot acts on the latest DISPLAY only; a short queue bounds memory if it falls behind.
    // Connected: a server whose port closes is noticed at once.
    const socket = yield* Effect.flatMap(Udp, (udp) => udp.open({ backlog: 256, connectTo: server }))
    const rng = Random.make(`${options.seed}/${index}`)
    const interval = Duration.millis(1000 / options.rate)
    // After a key, wait for it to show before deciding again, but not for ever: a key
    // can be overtaken (someone swapped places with this bot first) and not move at all.
    const moveTimeout = Duration.millis(Math.min(1000, Math.max(50, 3000 / options.rate)))
    const patience = Duration.toMillis(options.patience ?? defaultPatience)

    let brain: Brain = newBrain(options.strategy)
    let lastHeard = 0
    // When the bot last had a new view to play from, and what it could not read since.
    let lastView = 0
    let problem: string | undefined
    let portClosed = false
    const answered = yield* Deferred.make<void>()
    const ended = yield* Deferred.make<BotOutcome>()
    const moved = yield* Queue.sliding<void>(1)

    const listen = (data: Uint8Array) =>
      Effect.gen(function*() {
        const before = brain.report
        brain = hear(brain, data)
        const report = brain.report
        lastHeard = yield* Clock.currentTimeMillis
        yield* Deferred.succeed(answered, undefined)
        const was = before.position
        const now = report.position
        if (now !== undefined && (was === undefined || was.row !== now.row || was.col !== now.col)) {
          yield* Queue.offer(moved, undefined)
        }
        if (report.letter !== undefined && before.letter === undefined) {
          yield* Effect.logInfo(`${name}: joined as ${report.letter}`)
        }
        if (report.view !== before.view) {
          lastView = lastHeard
          problem = undefined
        }
        if (report.note?._tag === "BadDisplay" || report.note?._tag === "BadMessage") problem = noteText(report.note)
        if (report.note !== undefined) yield* Effect.logDebug(`${name}: ${noteText(report.note)}`)
        if (report.ending && !before.ending) {
          yield* Effect.logInfo(`${name}: ${describe(report.ending, report.remaining)}`)
          yield* Deferred.succeed(ended, report.ending)
        }
      })
    // Not Stream.runForEachWhile: in effect 3.22 it holds on to every element it has seen.
    yield* socket.incoming.pipe(Stream.runForEach((datagram) => listen(datagram.data)), Effect.forkScoped)
    yield* socket.failures.pipe(
      Stream.filter((failure) => failure.code === "ECONNREFUSED"),
      // Said once: a bot that goes on sending to a closed port hears of it for every datagram.
      // The system reports it before the datagrams still waiting to be read, the server's
      // last words among them (a server that exits at game over): those have the last word.
      Stream.runForEach(() =>
        portClosed ? Effect.void : Effect.gen(function*() {
          portClosed = true
          // Before any answer, that is how the bot's run ends: its result says it, once.
          if (yield* Deferred.isDone(answered)) yield* Effect.logWarning(`${name}: the server's port is closed`)
          yield* Effect.sleep(closedPortGrace)
          yield* Deferred.succeed(ended, { _tag: "Lost" })
        })
      ),
      Effect.forkScoped
    )

    const pressKeys = Effect.gen(function*() {
      // What came meanwhile first: a bot whose game is over presses nothing more.
      yield* arrivalsRead
      if (brain.report.ending !== undefined) return
      const now = yield* Clock.currentTimeMillis
      if (problem !== undefined && now - lastView > patience) {
        yield* Effect.logWarning(`${name}: nothing to play from for ${patience / 1000} s, the server's messages unreadable (${problem}); giving up`)
        return yield* Deferred.succeed(ended, { _tag: "Unreadable", reason: problem })
      }
      if (now - lastHeard > patience) {
        yield* Effect.logWarning(`${name}: no word from the server for ${patience / 1000} s; giving up`)
        return yield* Deferred.succeed(ended, { _tag: "Lost" })
      }
      const decision = yield* decide(brain, rng)
      // Keep what the decision learned, but not over news that arrived meanwhile.
      brain = brain.report.view === decision.brain.report.view ? { ...brain, memory: decision.brain.memory } : brain
      if (decision.key === undefined) return
      yield* Queue.takeAll(moved)
      socket.sendNow(encodeClientMessage({ _tag: "Key", key: decision.key }), server)
      yield* Queue.take(moved).pipe(Effect.timeout(moveTimeout), Effect.ignore)
    }).pipe(
      // Jittered a little, as a person's keys are, and so that bots do not march in step.
      Effect.repeat(Schedule.spaced(interval).pipe(Schedule.jittered))
    )

    // Sent again only if no answer has come, read or not.
    const play = arrivalsRead.pipe(Effect.zipRight(socket.send(encodeClientMessage({ _tag: "Play", name }), server)))
    // A closed port ends the wait at once: no server is there to answer.
    const heard = yield* Deferred.await(answered).pipe(
      Effect.raceFirst(play.pipe(Effect.repeat(joinRetries), Effect.zipRight(Effect.never))),
      Effect.raceFirst(Deferred.await(ended)),
      Effect.timeout(options.answerTimeout ?? "5 seconds"),
      Effect.option
    )
    if (heard._tag === "None" || !(yield* Deferred.isDone(answered))) {
      if (portClosed) return result(name, brain, { _tag: "Unreachable" })
      yield* Effect.logWarning(`${name}: no answer from ${options.host}:${options.port}`)
      return result(name, brain, { _tag: "NoAnswer" })
    }
    lastView = lastHeard
    /** Q until the server's QUIT (or any end) comes, or the patience runs out. */
    const quit = socket.send(encodeClientMessage({ _tag: "Key", key: "Q" }), server).pipe(
      Effect.repeat(Schedule.spaced(quitRetry)),
      Effect.raceFirst(Deferred.await(ended)),
      Effect.timeout(quitTimeout),
      Effect.ignore
    )
    /**
     * Interrupted (SIGINT, SIGTERM): leave the game politely rather than vanish. A finalizer
     * runs uninterruptibly, and so would the race in `quit`, which could then never stop its
     * loser, and Q would go on for ever: it runs in a fiber of its own, interruptible.
     */
    const quitOnInterrupt = Effect.gen(function*() {
      if (!brain.report.joined || brain.report.ending || (yield* Deferred.isDone(ended))) return
      yield* Fiber.join(yield* Effect.fork(Effect.interruptible(quit)))
      yield* Effect.logInfo(`${name}: stopped, as ${brain.report.letter ?? "a player whose letter never came"} with ${brain.report.purse} nuggets`)
    })
    const deadline = Effect.sleep(options.deadline ?? defaultDeadline).pipe(Effect.as("deadline" as const))
    const first = yield* Effect.raceAll([Deferred.await(ended), pressKeys.pipe(Effect.zipRight(Effect.never)), deadline]).pipe(
      Effect.onInterrupt(() => quitOnInterrupt)
    )
    if (first !== "deadline") return result(name, brain, first)
    yield* Effect.logWarning(`${name}: the deadline passed; quitting`)
    yield* quit
    return result(name, brain, { _tag: "Deadline" })
  }))

/**
 * A bot's result. At game over its line of the summary has the last word: the OK with its
 * letter, or the GOLD with its last nuggets, may have been lost on the way.
 */
export const result = (name: string, brain: Brain, outcome: BotOutcome): BotResult => {
  const { ending, letter, purse, remaining } = brain.report
  const own = ending?._tag === "GameOver" ? ownStanding(ending.summary, { letter, name }) : undefined
  return { name, letter: own?.letter ?? letter, purse: own?.purse ?? purse, outcome, remaining }
}

const describe = (ending: SessionEnd, remaining: number | undefined): string => {
  switch (ending._tag) {
    case "GameOver":
      return endTitle(endOf(nuggetsLeftAt(ending.summary, remaining) ?? 0)).toLowerCase()
    case "Quit":
      return `told to quit${ending.reason ? `: ${ending.reason}` : ""}`
    case "Refused":
      return `refused${ending.reason ? `: ${ending.reason}` : ""}`
    case "BadGrid":
      return `the server sent a bad GRID: ${ending.reason}`
  }
}

/** One line per bot: its letter, purse and name, then how it ended. */
export const resultLine = (result: BotResult): string => {
  const outcome = result.outcome
  const how = outcome._tag === "NoAnswer"
    ? "no answer from the server"
    : outcome._tag === "Unreachable"
    ? "the server's port is closed"
    : outcome._tag === "Lost"
    ? "the server stopped answering"
    : outcome._tag === "Unreadable"
    ? `cannot read the server: ${outcome.reason}`
    : outcome._tag === "Deadline"
    ? "the deadline passed"
    : describe(outcome, result.remaining)
  return `${result.letter ?? "-"} ${String(result.purse).padStart(5)} ${result.name} (${how})`
}
