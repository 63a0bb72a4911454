import { Effect, Queue } from "effect"
import { resolveHost } from "../../net/resolve.js"
import { anyAddressOf } from "../../net/udp.js"
import { entryLine, headerLine, transcriptVersion } from "../../protocol/transcript.js"
import { openLineFile } from "../../recording/writer.js"
import { version } from "../../version.js"
import { makeRelay } from "./relay.js"
import type { RelayEvent } from "./relay-events.js"
import type { Rule } from "./relay-rules.js"
import { makeTimeline } from "./timeline.js"

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
  /** Keeps every datagram, as each side sent it, in this transcript file (replaced only if `overwrite`). */
  readonly record?: { readonly path: string; readonly overwrite: boolean }
}

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
export const faultRules = (faults: Faults): ReadonlyArray<Rule> => [
  ...(faults.loss > 0 ? [{ label: "loss", when: { probability: faults.loss }, action: { kind: "drop" } } as const] : []),
  ...(faults.duplicate > 0
    ? [{ label: "duplicate", when: { probability: faults.duplicate }, action: { kind: "duplicate", copies: 1 } } as const]
    : []),
  ...(faults.reorder ? [{ label: "reorder", when: { probability: reorderChance }, action: { kind: "reorder", maxWaitMs: 200 } } as const] : []),
  ...(faults.delay ? [{ label: "delay", action: { kind: "delay", ms: faults.delay.min, maxMs: faults.delay.max } } as const] : [])
]

const isLoopback = (address: string) => address.startsWith("127.") || address === "::1"

/**
 * Relays until interrupted, writing the timeline with `write`; the last line counts what
 * passed. The relay and every socket it opened are closed on the way out.
 */
export const runProxy = (options: ProxyOptions, write: (line: string) => void) =>
  Effect.gen(function*() {
    const server = yield* resolveHost(options.server.host)
    const relay = yield* makeRelay({
      server: { host: server.address, port: options.server.port },
      listen: options.listen,
      upstreamHost: isLoopback(server.address) ? server.address : anyAddressOf(server.address),
      seed: options.faults.seed,
      rules: faultRules(options.faults),
      idleMs
    })
    const events = yield* relay.subscribe
    const timeline = makeTimeline(write, { colour: options.colour })
    const record = options.record === undefined ? undefined : yield* transcript(options.record, {
      transcript: transcriptVersion,
      source: `nuggets proxy ${version}, clients to ${options.server.host}:${options.server.port}`,
      map: "unknown",
      recorded: "each datagram as its sender sent it, before any fault",
      faults: describeFaults(options.faults)
    })
    const take = (event: RelayEvent) => {
      timeline.onEvent(event)
      record?.(event)
    }
    write(
      `Relaying UDP port ${relay.port} to ${options.server.host}:${options.server.port} (${describeFaults(options.faults)}); ` +
        `point clients at port ${relay.port}`
    )
    // Interrupted: the events already there are written first, then the count.
    const rest = Queue.takeAll(events).pipe(Effect.map((left) => {
      for (const event of left) take(event)
    }))
    return yield* Queue.take(events).pipe(
      Effect.map(take),
      Effect.forever,
      Effect.onInterrupt(() => rest.pipe(Effect.zipRight(Effect.sync(() => write(timeline.summary())))))
    )
  })

/**
 * The transcript: datagrams as each side sent them (a late send is the same datagram
 * again, not recorded twice), written as the recordings are.
 */
const transcript = (record: NonNullable<ProxyOptions["record"]>, header: Parameters<typeof headerLine>[0]) =>
  Effect.gen(function*() {
    const file = yield* openLineFile(record.path, { overwrite: record.overwrite })
    file.write(headerLine(header))
    file.flush()
    yield* file.written
    return (event: RelayEvent) => {
      if (event.kind === "release") return
      file.write(entryLine({ t: Math.round(event.at), from: event.dir === "up" ? "client" : "server", client: event.clientNumber - 1, data: event.bytes }))
    }
  })
