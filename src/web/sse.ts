import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Stream } from "effect"
import { Readable } from "node:stream"
import { safeHeaders } from "./headers.js"

const encoder = new TextEncoder()

/** One Server-Sent Event. JSON has no raw line breaks, so the data fits on one `data:` line. */
export const sseEvent = (event: string, data: unknown): Uint8Array =>
  encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)

/**
 * How often a quiet feed says it is still there (a comment line, ignored by browsers):
 * proxies keep it open, and a connection that has taken nothing for `listen.ts`'s idle
 * limit can be told from one that is only quiet.
 */
export const heartbeatInterval = Duration.seconds(20)

/** A comment line: what a quiet feed sends. */
export const heartbeat = encoder.encode(":\n\n")

/** Comments every `heartbeatInterval`, for ever. */
export const heartbeats: Stream.Stream<Uint8Array> = Stream.tick(heartbeatInterval).pipe(Stream.drop(1), Stream.as(heartbeat))

const eventOptions = { contentType: "text/event-stream", headers: { ...safeHeaders, "x-accel-buffering": "no" } }

/** An endless feed of events, as `/watch` answers: an Effect stream, or a Node stream the platform pipes. */
export const eventStream = (body: Stream.Stream<Uint8Array> | Readable) =>
  body instanceof Readable ? HttpServerResponse.raw(body, eventOptions) : HttpServerResponse.stream(body, eventOptions)
