import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { ArchiveOwner } from "../archive/archive.js"
import { what } from "./database.js"
import { lobbyChannel } from "./board.js"
import { Membership } from "./membership.js"

/**
 * What every host of the fleet does for the others, every `renewEvery`: a host whose lease
 * lapsed is claimed, by exactly one of them, and only by one that has itself been renewing
 * its own for a whole lease (after the database was away, every lease lapsed) (the claim raises its epoch, so the dead host,
 * should it come back, can write nothing more); and the games of a host that is gone are
 * ended for the fleet: indexed from their recordings (`interrupted`, replayable to where
 * they stopped, unless the recording says how they ended), then taken off the board. Each
 * step can be done again: a sweeper that dies halfway leaves the rest to the next.
 */
export const sweepLayer: Layer.Layer<never, never, SqlClient.SqlClient | Membership | ArchiveOwner> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const membership = yield* Membership
    const owner = yield* ArchiveOwner

    const claimLapsed = sql<{ id: string; epoch: number }>`UPDATE fleet_hosts SET gone = true, epoch = epoch + 1
      WHERE NOT gone AND lease_until < now() AND id <> ${membership.hostId} RETURNING id, epoch`.pipe(
      Effect.tap((claimed) =>
        Effect.forEach(claimed, ({ epoch, id }) => Effect.logWarning(`host ${id}: its lease lapsed; claimed for the fleet (epoch ${epoch})`), { discard: true })
      )
    )

    const endOrphans = Effect.gen(function*() {
      const orphans = yield* sql<{ id: string; host_id: string }>`SELECT g.id, g.host_id FROM fleet_games g
        JOIN fleet_hosts h ON h.id = g.host_id WHERE h.gone ORDER BY g.id LIMIT 100`
      for (const game of orphans) {
        const ended = yield* owner.gameEnded(game.id).pipe(Effect.either)
        if (ended._tag === "Left") {
          yield* Effect.logWarning(`game ${game.id} of host ${game.host_id}: the archive could not index it: ${ended.left.message}`)
          continue
        }
        yield* sql`DELETE FROM fleet_games WHERE id = ${game.id}`
        yield* sql`SELECT pg_notify(${lobbyChannel}, ${game.id})`
        yield* Effect.logInfo(`game ${game.id} of host ${game.host_id}, gone: ended for the fleet (${ended.right.outcome})`)
      }
    })

    // A host that was cut off itself claims no one: the others' leases lapsed as its own did.
    const sweep = Effect.suspend(() => (membership.steady() ? claimLapsed : Effect.void)).pipe(
      Effect.zipRight(endOrphans),
      Effect.catchAll((cause) => Effect.logWarning(`the fleet's database: cannot look for hosts gone: ${what(cause.cause ?? cause)}`))
    )
    yield* Effect.sleep(membership.timings.renewEvery).pipe(Effect.zipRight(sweep), Effect.forever, Effect.forkScoped)
  })
)
