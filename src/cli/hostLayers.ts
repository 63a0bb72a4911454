import { Layer, Option } from "effect"
import { archiveLayer, archiveOwnerLayer } from "../archive/archive.js"
import { sqliteBackend } from "../archive/sqlite.js"
import { fleetLobby, fleetStore } from "../fleet/layers.js"
import type { FleetTimings, HostCard } from "../fleet/membership.js"
import { alwaysAdmitting } from "../host/admission.js"
import { hostLayer, type HostSettings } from "../host/host.js"
import { localLobbyLayer } from "../host/lobby.js"
import { hostMetricsLayer } from "../host/metrics.js"
import { operatorLayer } from "../host/operator.js"
import { processCountsLayer } from "../server/counts.js"
import { hostWebLayer } from "../host/web.js"
import type { ListenOptions } from "../web/listen.js"

/** Where a host keeps its archive: alone, SQLite in its data directory; in a fleet, the fleet's PostgreSQL. */
export type HostStore =
  | { readonly _tag: "Alone"; readonly dataDir: string }
  | {
    readonly _tag: "Fleet"
    readonly url: URL
    readonly card: HostCard
    readonly machine?: string
    /** The fleet's leases and held places; the defaults when not given (tests make them quick). */
    readonly timings?: FleetTimings
  }

/**
 * `nuggets host` as Layers, the one place the choice of a store is made: its lobby on the
 * web, the lobby it offers (its own games, or the fleet's), its games, the archive, and
 * below them the database, alone or in a fleet.
 */
export const hostLayers = (web: ListenOptions, settings: HostSettings, store: HostStore, operator: Option.Option<string> = Option.none()) => {
  // The whole process counts into one tally, which /metrics reads.
  const games = hostLayer(settings).pipe(
    Layer.provideMerge(archiveOwnerLayer),
    Layer.provideMerge(archiveLayer),
    Layer.provideMerge(hostMetricsLayer),
    Layer.provideMerge(processCountsLayer),
    Layer.provideMerge(operatorLayer(operator))
  )
  if (store._tag === "Alone") {
    return hostWebLayer(web).pipe(
      Layer.provideMerge(localLobbyLayer),
      Layer.provideMerge(games),
      Layer.provideMerge(alwaysAdmitting),
      Layer.provide(sqliteBackend({ dataDir: store.dataDir, create: true }))
    )
  }
  return hostWebLayer(web).pipe(
    Layer.provideMerge(fleetLobby),
    Layer.provideMerge(games),
    Layer.provideMerge(fleetStore(store.url, store.card, store.machine ?? "host", store.timings))
  )
}
