import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { Archive, archiveLayer, ArchiveOwner, archiveOwnerLayer, type ArchiveService } from "../../src/archive/archive.js"
import type { ArchiveOwnerService } from "../../src/archive/owner.js"
import { Board, boardLayer, type BoardService } from "../../src/fleet/board.js"
import { fleetDatabaseLayer } from "../../src/fleet/database.js"
import { type FleetTimings, type HostCard, Membership, membershipLayer, type MembershipService } from "../../src/fleet/membership.js"
import { fleetArchiveBackend } from "../../src/fleet/recordings.js"
import { sweepLayer } from "../../src/fleet/sweep.js"
import { entryText } from "../../src/log.js"

/** Quick leases, so that a host is taken for dead within a second or so. */
export const quickTimings: FleetTimings = { renewEvery: "200 millis", leaseFor: "1 second", seatHeld: "2 seconds" }

export interface Member {
  readonly membership: MembershipService
  readonly board: BoardService
  readonly archive: ArchiveService
  readonly owner: ArchiveOwnerService
  readonly sql: SqlClient.SqlClient
  /** Every line it logged, `LEVEL message`. */
  readonly log: Array<string>
  readonly leave: () => Promise<void>
}


/** A host's part of the fleet, without its games: its membership, the board, the archive and the sweeper, on `url`. */
export const startMember = async (url: URL, name: string, card: Partial<HostCard> = {}, timings = quickTimings): Promise<Member> => {
  const log: Array<string> = []
  const logger = Logger.make((entry) => void log.push(`${entry.logLevel.label} ${entryText(entry)}`))
  const database = fleetDatabaseLayer(url)
  const membership = membershipLayer({ lobbyUrl: `http://${name}.invalid/`, joinAddress: name, ports: undefined, maxGames: 10, ...card }, name, timings)
  const archive = archiveOwnerLayer.pipe(Layer.provideMerge(archiveLayer), Layer.provideMerge(fleetArchiveBackend(url)))
  const layers = Layer.mergeAll(boardLayer, sweepLayer).pipe(
    Layer.provideMerge(archive),
    Layer.provideMerge(membership),
    Layer.provideMerge(database)
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(layers, scope).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)), Logger.withMinimumLogLevel(LogLevel.Debug))
  )
  return {
    membership: Context.get(context, Membership),
    board: Context.get(context, Board),
    archive: Context.get(context, Archive),
    owner: Context.get(context, ArchiveOwner),
    sql: Context.get(context, SqlClient.SqlClient),
    log,
    leave: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
