import { Effect, Scope } from "effect"
import * as dgram from "node:dgram"
import type { Rules } from "../../src/core/rules.js"
import type { Dialect } from "../../src/protocol/dialect.js"
import { loadMap } from "../support.js"
import { startServer } from "../server/harness.js"

/**
 * Deliberately broken servers for the checker's tests: our own server, in this process,
 * behind a small forwarder that rewrites, drops or adds datagrams on their way, as a
 * script says. Each broken server is one bug, a few lines long.
 */

/** Per client, numbered from 1 in order of appearance. */
export interface Traffic {
  readonly client: number
  /** Datagrams from this client so far, this one included. */
  readonly fromClient: ReadonlyArray<string>
  /** Datagrams the server sent this client so far, before any rewriting. */
  readonly fromServer: ReadonlyArray<string>
}

/** What to send on instead: the same text, another, several, or nothing. */
export type Rewrite = (text: string, traffic: Traffic) => string | ReadonlyArray<string> | undefined

export interface Bugs {
  /** Server to client. */
  readonly down?: Rewrite
  /** Client to server. */
  readonly up?: Rewrite
  /** The checker's answer to a client itself, instead of the server's (which then hears nothing). */
  readonly answer?: (text: string, traffic: Traffic) => ReadonlyArray<string> | undefined
}

export interface BrokenServerOptions {
  readonly map?: string
  readonly seed?: number
  readonly dialect?: Dialect
  readonly rules?: Rules
  readonly bugs?: Bugs
}

const outOf = (result: string | ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  result === undefined ? [] : typeof result === "string" ? [result] : result

export const brokenServer = (options: BrokenServerOptions = {}) =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.promise(() =>
        startServer({
          map: loadMap(options.map ?? "main.txt"),
          seed: options.seed ?? 1,
          ...(options.dialect ? { dialect: options.dialect } : {}),
          ...(options.rules ? { rules: options.rules } : {})
        })
      ),
      (server) => Effect.promise(() => server.stop())
    )
    const bugs = options.bugs ?? {}
    const scope = yield* Effect.scope
    const open = () =>
      Effect.acquireRelease(
        Effect.async<dgram.Socket>((resume) => {
          const socket = dgram.createSocket("udp4")
          socket.bind(0, "127.0.0.1", () => resume(Effect.succeed(socket)))
        }),
        (socket) => Effect.async<void>((resume) => void socket.close(() => resume(Effect.void)))
      ).pipe(Scope.extend(scope))
    const front = yield* open()
    const clients = new Map<string, { socket: dgram.Socket; traffic: { client: number; fromClient: Array<string>; fromServer: Array<string> } }>()
    const sockets: Array<dgram.Socket> = []
    front.on("message", (bytes, from) => {
      const key = `${from.address}:${from.port}`
      let entry = clients.get(key)
      if (!entry) {
        const socket = dgram.createSocket("udp4")
        sockets.push(socket)
        const traffic = { client: clients.size + 1, fromClient: [] as Array<string>, fromServer: [] as Array<string> }
        entry = { socket, traffic }
        clients.set(key, entry)
        socket.bind(0, "127.0.0.1")
        socket.on("message", (reply) => {
          const text = reply.toString("latin1")
          traffic.fromServer.push(text)
          for (const out of bugs.down ? outOf(bugs.down(text, traffic)) : [text]) front.send(Buffer.from(out, "latin1"), from.port, from.address)
        })
      }
      const text = bytes.toString("latin1")
      entry.traffic.fromClient.push(text)
      const answer = bugs.answer?.(text, entry.traffic)
      if (answer !== undefined) {
        for (const out of answer) front.send(Buffer.from(out, "latin1"), from.port, from.address)
        return
      }
      for (const out of bugs.up ? outOf(bugs.up(text, entry.traffic)) : [text]) {
        entry.socket.send(Buffer.from(out, "latin1"), server.port, "127.0.0.1")
      }
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => sockets.forEach((socket) => socket.close())))
    return { port: front.address().port, server }
  })
