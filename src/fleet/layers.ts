import type * as SqlClient from "@effect/sql/SqlClient"
import type * as PgClient from "@effect/sql-pg/PgClient"
import { Effect, Layer } from "effect"
import type { ArchiveBackend } from "../archive/backend.js"
import type { ArchiveOwner } from "../archive/archive.js"
import { type Admission, admissionLayer } from "../host/admission.js"
import { Host } from "../host/host.js"
import type { Lobby } from "../host/lobby.js"
import { Board, boardLayer } from "./board.js"
import { type FleetError, fleetDatabaseLayer } from "./database.js"
import { fleetLobbyLayer } from "./lobby.js"
import { type FleetTimings, type HostCard, Membership, membershipLayer } from "./membership.js"
import { fleetArchiveBackend } from "./recordings.js"
import { sweepLayer } from "./sweep.js"

/**
 * A host of a fleet, as Layers: below the archive, the fleet's database, this host's
 * membership and the archive's backend there (`store`); above the host's games, its lobby
 * of the whole fleet, whether it admits (while it holds its lease), the board and the sweep
 * (`lobby`). `nuggets host --database URL` builds these where a lone host builds SQLite in
 * its data directory and its own lobby.
 */
export const fleetStore = (
  url: URL,
  card: HostCard,
  machine: string,
  timings?: FleetTimings
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | Membership | ArchiveBackend | Admission, FleetError> => {
  const database = fleetDatabaseLayer(url)
  const membership = membershipLayer(card, machine, timings).pipe(Layer.provideMerge(database))
  const admission = admissionLayer(Effect.map(Membership, (member) => () =>
    member.holding() ? undefined : "this host cannot renew its lease in the fleet: it takes no new game and no new player"))
  return Layer.mergeAll(fleetArchiveBackend(url), admission).pipe(Layer.provideMerge(membership))
}

/** Should the fleet claim this host (its lease lapsed while it was away): its games end here too, then it joins again. */
const followingClaims = Layer.scopedDiscard(Effect.gen(function*() {
  const membership = yield* Membership
  const host = yield* Host
  const recover = membership.lost.pipe(
    Effect.zipRight(Effect.logWarning("the fleet ended this host's games while it was away: they end here too")),
    Effect.zipRight(host.endAll),
    Effect.zipRight(membership.rejoin),
    Effect.zipRight(host.keepOpen),
    Effect.catchAll((error) => Effect.logError(error.message).pipe(Effect.zipRight(Effect.sleep(membership.timings.renewEvery))))
  )
  yield* Effect.forkScoped(Effect.forever(recover))
}))

/** The lobby of the fleet, with the board it reads, the sweep every host does for the others, and its claims followed. */
export const fleetLobby: Layer.Layer<Lobby | Board, never, Host | Membership | SqlClient.SqlClient | PgClient.PgClient | ArchiveOwner> =
  fleetLobbyLayer.pipe(Layer.provideMerge(Layer.mergeAll(sweepLayer, followingClaims)), Layer.provideMerge(boardLayer))
