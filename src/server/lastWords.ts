import { type Duration, Effect, FiberSet, type Scope } from "effect"
import type { ClientId } from "../core/state.js"
import type { Peer } from "./peer.js"

/**
 * What the server says of its own accord at the end (GAMEOVER, a QUIT no one asked for)
 * goes out `copies` times in all, `spacing` apart: a client must not miss the end for one
 * lost datagram. The copies stop for a client let in again meanwhile (a replaced spectator
 * that spectates again holds the seat: its QUIT is no longer true). And the QUIT each
 * client was told last is kept, to say again to a client that asks to quit once more
 * because that QUIT was lost: quitting is acknowledged on both sides.
 */
export interface LastWords {
  /** Says `datagram` to `peer` now, and again later if `repeat`; a QUIT is remembered. */
  readonly say: (peer: Peer, datagram: Uint8Array | string, options: { readonly repeat: boolean; readonly quit: boolean }) => void
  /** `id` was let in (again): copies still to come stop, and its QUIT is forgotten. */
  readonly admitted: (id: ClientId) => void
  /** The QUIT `id` was told last, if any. */
  readonly quitOf: (id: ClientId) => Uint8Array | string | undefined
  /** Succeeds once every copy has been sent (or stopped). */
  readonly allSaid: Effect.Effect<void>
}

export interface LastWordsOptions {
  readonly copies: number
  readonly spacing: Duration.DurationInput
}

/** Clients remembered at most: a flood of SPECTATEs from new addresses makes a QUIT each. */
const maxRemembered = 4096

/**
 * Repeats under way at most. Each is a sleeping fiber for half a second; past this (a
 * flood of SPECTATEs from new addresses, each replacing the last), last words are said once.
 */
const maxRepeating = 256

export const makeLastWords = (options: LastWordsOptions): Effect.Effect<LastWords, never, Scope.Scope> =>
  Effect.gen(function*() {
    const repeats = yield* FiberSet.make()
    const runRepeat = yield* FiberSet.runtime(repeats)<never>()
    /** How many times each client has been let in: a copy goes out only if this has not changed since. */
    const admissions = new Map<ClientId, number>()
    const quits = new Map<ClientId, Uint8Array | string>()
    let repeating = 0

    const repeat = (peer: Peer, datagram: Uint8Array | string) => {
      const admission = admissions.get(peer.id)
      return Effect.sleep(options.spacing).pipe(
        Effect.zipRight(Effect.sync(() => {
          if (admissions.get(peer.id) === admission) peer.send(datagram)
        })),
        Effect.repeatN(options.copies - 2),
        Effect.ensuring(Effect.sync(() => repeating--))
      )
    }

    return {
      say: (peer, datagram, { quit, repeat: again }) => {
        peer.send(datagram)
        if (quit) {
          if (quits.size >= maxRemembered && !quits.has(peer.id)) quits.delete(quits.keys().next().value!)
          quits.set(peer.id, datagram)
        }
        if (again && options.copies > 1 && repeating < maxRepeating) {
          repeating++
          if (!admissions.has(peer.id)) {
            if (admissions.size >= maxRemembered) admissions.clear()
            admissions.set(peer.id, 0)
          }
          runRepeat(repeat(peer, datagram))
        }
      },
      admitted: (id) => {
        // Only clients that were given last words are counted.
        const count = admissions.get(id)
        if (count !== undefined) admissions.set(id, count + 1)
        quits.delete(id)
      },
      quitOf: (id) => quits.get(id),
      allSaid: FiberSet.awaitEmpty(repeats)
    }
  })
