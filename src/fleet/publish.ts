import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, type Scope, Stream } from "effect"
import { hasFreePlace, type HostService, type RunningGame } from "../host/host.js"
import { liveGameJson } from "../host/json.js"
import type { BoardService, PostedGame } from "./board.js"
import type { FleetError } from "./database.js"

/**
 * This host's games on the fleet's board: each change the lobby would show is posted (at
 * most every `pace`), a game gone is taken off, and a player who came takes one of the
 * places matchmaking held in its game. What could not be written is written at the next
 * change, or within `retry` (a database that was away).
 */

const pace = "100 millis"
const retry = "1 second"

/** What the board keeps of a game: the lobby's JSON but for its host's join line and page, which the reader makes. */
const posted = (game: RunningGame, host: HostService): PostedGame => {
  const { join: _join, page: _page, ...shown } = liveGameJson(game, host.settings)
  const state = game.live.state()
  return {
    id: game.id,
    port: game.port,
    shown,
    freePlaces: hasFreePlace(game.live) ? state.rules.maxPlayers - state.players.length : 0,
    playing: state.players.filter((each) => each.active).length,
    startedMs: game.startedMs,
    over: state.over
  }
}

/** Posts this host's games for as long as the scope lasts; gives back a way to post them now (a game just started). */
export const publishing = (host: HostService, board: BoardService): Effect.Effect<Effect.Effect<void, FleetError>, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** What was last posted of each game, and how many had joined it. */
    let last = new Map<string, { readonly text: string; readonly joined: number }>()

    const publish: Effect.Effect<void, FleetError> = Effect.suspend(() => {
      // A game stays on the board until it is in the archive: one is always on the board or in the archive.
      const now = host.unarchived().map((game) => ({ game, post: posted(game, host), joined: game.live.state().players.length }))
      const changed = now.filter(({ post }) => last.get(post.id)?.text !== JSON.stringify(post))
      const gone = [...last.keys()].filter((id) => !now.some(({ game }) => game.id === id))
      return Effect.gen(function*() {
        yield* board.post(changed.map(({ post }) => post))
        // Each player who came took one of the places held for its game, the oldest.
        yield* Effect.forEach(changed, ({ joined, post }) => {
          const came = joined - (last.get(post.id)?.joined ?? joined)
          return came <= 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM fleet_seats WHERE ctid IN (
            SELECT ctid FROM fleet_seats WHERE game_id = ${post.id} ORDER BY held_until LIMIT ${came})`)
        }, { discard: true }).pipe(Effect.ignore)
        yield* Effect.forEach(gone, board.withdraw, { discard: true })
        last = new Map(now.map(({ joined, post }) => [post.id, { text: JSON.stringify(post), joined }]))
      })
    })

    const publishNowOrLater = publish.pipe(
      Effect.catchAll((error) => Effect.logWarning(error.message).pipe(Effect.zipRight(Effect.sleep(retry)), Effect.zipRight(Effect.ignore(publish))))
    )
    // However often the games change, they are posted at most every `pace`, as they stand then: the last change is never missed.
    const changed = yield* Effect.makeLatch(false)
    yield* host.changes.changes.pipe(Stream.runForEach(() => changed.open), Effect.forkScoped)
    yield* changed.await.pipe(
      Effect.zipRight(changed.close),
      Effect.zipRight(publishNowOrLater),
      Effect.zipRight(Effect.sleep(pace)),
      Effect.forever,
      Effect.forkScoped
    )
    return publish
  })
