import { Data, Effect } from "effect"
import { closeSync, openSync, writeSync } from "node:fs"
import { resolveHost } from "../../net/resolve.js"
import { entryLine, headerLine, transcriptVersion } from "../../protocol/transcript.js"
import { version } from "../../version.js"
import { type RelayEvent, startRelay, type UdpRelay } from "./relay.js"
import { makeTimeline, type Timeline } from "./timeline.js"

/** `nuggets proxy`: a relay between any client and any server, with seeded faults and a timeline. */

export interface Faults {
  /** Chance that a datagram is lost, 0..1. */
  readonly loss: number
  /** Chance that a datagram arrives twice. */
  readonly duplicate: number
  /** Each datagram waits this many milliseconds, or a time drawn from the range. */
  readonly delay: { readonly min: number; readonly max: number } | undefined
  /** Now and then a datagram is overtaken by the next one. */
  readonly reorder: boolean
  readonly seed: number
}

export interface ProxyOptions {
  readonly listen: { readonly host: string; readonly port: number }
  readonly server: { readonly host: string; readonly port: number }
  readonly faults: Faults
  readonly colour: boolean
  /** Keeps every datagram, as each side sent it, in this transcript file (replaced if it exists). */
  readonly record?: string
}

export class ProxyError extends Data.TaggedError("ProxyError")<{ readonly message: string }> {}

/** One datagram in ten, chosen by the seed, is overtaken when `--reorder` is on. */
export const reorderChance = 0.1

/** A client silent both ways for this long loses its socket toward the server. */
const idleMs = 10 * 60_000

/** The faults, in words, for the first line. */
export const describeFaults = (faults: Faults): string => {
  const parts = [
    faults.loss > 0 ? `loss ${faults.loss * 100}%` : "",
    faults.duplicate > 0 ? `duplicate ${faults.duplicate * 100}%` : "",
    faults.delay ? `delay ${faults.delay.min === faults.delay.max ? faults.delay.min : `${faults.delay.min}-${faults.delay.max}`} ms` : "",
    faults.reorder ? `reorder ${reorderChance * 100}%` : ""
  ].filter(Boolean)
  return parts.length === 0 ? "no faults" : `${parts.join(", ")}, seed ${faults.seed}`
}

/**
 * The faults as relay rules. The first rule that picks a datagram decides its fate, so each
 * datagram meets one fault at most: lost, else duplicated, else overtaken, else delayed.
 */
const addFaults = (relay: UdpRelay, faults: Faults) => {
  if (faults.loss > 0) relay.drop({ when: { probability: faults.loss }, label: "loss" })
  if (faults.duplicate > 0) relay.duplicate({ when: { probability: faults.duplicate }, label: "duplicate" })
  if (faults.reorder) relay.reorder({ when: { probability: reorderChance }, label: "reorder" })
  if (faults.delay) relay.delay({ ms: faults.delay.min, maxMs: faults.delay.max, label: "delay" })
}

const isLoopback = (address: string) => address.startsWith("127.") || address === "::1"

/**
 * Relays until interrupted, writing the timeline with `write`; the last line counts what
 * passed. The relay and every socket it opened are closed on the way out.
 */
export const runProxy = (options: ProxyOptions, write: (line: string) => void) =>
  Effect.gen(function*() {
    const server = yield* resolveHost(options.server.host).pipe(
      Effect.mapError((error) => new ProxyError({ message: error.message }))
    )
    const relay = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          startRelay({
            server: { host: server.address, port: options.server.port },
            listen: options.listen,
            upstreamHost: isLoopback(server.address) ? server.address : server.family === "udp6" ? "::" : "0.0.0.0",
            seed: options.faults.seed,
            keepEvents: false,
            idleMs
          }),
        catch: (error) => new ProxyError({ message: listenFailure(error, options.listen) })
      }),
      (relay) => Effect.promise(() => relay.close())
    )
    addFaults(relay, options.faults)
    const timeline: Timeline = makeTimeline(write, { colour: options.colour })
    relay.onEvent(timeline.onEvent)
    if (options.record !== undefined) {
      const record = yield* recorder(options.record, {
        transcript: transcriptVersion,
        source: `nuggets proxy ${version}, clients to ${options.server.host}:${options.server.port}`,
        map: "unknown",
        recorded: "each datagram as its sender sent it, before any fault",
        faults: describeFaults(options.faults)
      })
      relay.onEvent(record)
    }
    write(
      `Relaying UDP port ${relay.port} to ${options.server.host}:${options.server.port} (${describeFaults(options.faults)}); ` +
        `point clients at port ${relay.port}`
    )
    return yield* Effect.never.pipe(Effect.onInterrupt(() => Effect.sync(() => write(timeline.summary()))))
  })

/** How often what is recorded reaches the file: a crash loses at most this much. */
const flushMs = 100

/**
 * The transcript writer: datagrams as each side sent them (a late send is the same
 * datagram again, not recorded twice), in batches; the file is closed, all written, when
 * the scope ends.
 */
const recorder = (path: string, header: Parameters<typeof headerLine>[0]) =>
  Effect.gen(function*() {
    const fd = yield* Effect.acquireRelease(
      Effect.try({
        try: () => openSync(path, "w"),
        catch: (error) => new ProxyError({ message: `${path} — cannot record: ${(error as Error).message}` })
      }),
      (fd) => Effect.sync(() => {
        flush()
        closeSync(fd)
      })
    )
    let pending: Array<string> = [headerLine(header)]
    let failed = false
    const flush = () => {
      if (pending.length === 0 || failed) return
      try {
        writeSync(fd, pending.join(""))
      } catch (error) {
        failed = true
        process.stderr.write(`nuggets: ${path} — recording stopped: ${(error as Error).message}\n`)
      }
      pending = []
    }
    const timer = setInterval(flush, flushMs)
    yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(timer)))
    return (event: RelayEvent) => {
      if (event.kind === "release") return
      pending.push(entryLine({ t: Math.round(event.at), from: event.dir === "up" ? "client" : "server", client: event.clientNumber - 1, data: event.bytes }))
    }
  })

const listenFailure = (error: unknown, listen: ProxyOptions["listen"]) => {
  const code = (error as NodeJS.ErrnoException).code
  if (code === "EADDRINUSE") return `port ${listen.port} is already in use`
  if (code === "EADDRNOTAVAIL") return `${listen.host} — no such local address`
  if (code === "EACCES") return `not allowed to listen on ${listen.host}:${listen.port}`
  return `cannot listen on ${listen.host}:${listen.port}: ${(error as Error).message}`
}
