import { Effect, ExecutionStrategy, Exit, Scope } from "effect"
import type { Rules } from "../../src/core/rules.js"
import { makeRelay } from "../../src/kit/proxy/relay.js"
import type { Rule } from "../../src/kit/proxy/relay-rules.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"
import type { Dialect } from "../../src/protocol/dialect.js"
import { loadMap } from "../support.js"
import { startServer } from "../server/harness.js"

/**
 * Deliberately broken servers for the checker's tests: our own server, in this process,
 * behind the kit's relay, whose rewrite rules change, drop or add datagrams on their way
 * as a script says. Each broken server is one bug, a few lines long.
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
  /** The relay's own rules (a delay, say), before the rewriting: a datagram one of them takes is not rewritten. */
  readonly rules?: ReadonlyArray<Rule>
}

export interface BrokenServerOptions {
  readonly map?: string
  readonly seed?: number
  readonly dialect?: Dialect
  readonly rules?: Rules
  readonly bugs?: Bugs
  /**
   * The bug of a server that never exits: its port stays open after the game over. Without
   * it the broken server exits as ours does, its port closed a moment after the game ends.
   */
  readonly outlivesItsGame?: boolean
}

/** How long the broken server's port stays open after its game over (ours, too, lingers a moment to answer a late ask). */
const lingerMs = 1000

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
    /** What each client sent and was sent so far, by the relay's client number. */
    const traffic = new Map<number, { client: number; fromClient: Array<string>; fromServer: Array<string> }>()
    const trafficOf = (client: number) => {
      let each = traffic.get(client)
      if (each === undefined) traffic.set(client, each = { client, fromClient: [], fromServer: [] })
      return each
    }
    const rules: ReadonlyArray<Rule> = [
      ...(bugs.rules ?? []),
      {
        dir: "up",
        action: {
          kind: "rewrite",
          into: (text, _info, { client }) => {
            const each = trafficOf(client)
            each.fromClient.push(text)
            const answer = bugs.answer?.(text, each)
            if (answer !== undefined) return answer.map((back) => ({ back }))
            return bugs.up ? outOf(bugs.up(text, each)) : [text]
          }
        }
      },
      {
        dir: "down",
        action: {
          kind: "rewrite",
          into: (text, _info, { client }) => {
            const each = trafficOf(client)
            each.fromServer.push(text)
            return bugs.down ? outOf(bugs.down(text, each)) : [text]
          }
        }
      }
    ]
    const relayScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
    const relay = yield* makeRelay({ server: { host: "127.0.0.1", port: server.port }, rules }).pipe(
      Scope.extend(relayScope),
      Effect.provide(nodeUdpLayer)
    )
    if (options.outlivesItsGame !== true) {
      yield* Effect.promise(() => server.result).pipe(
        Effect.zipRight(Effect.sleep(lingerMs)),
        Effect.zipRight(Scope.close(relayScope, Exit.void)),
        Effect.forkScoped
      )
    }
    return { port: relay.port, server }
  })
