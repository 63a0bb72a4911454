import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Context, Deferred, Duration, Effect, Layer, Random, type Scope, SubscriptionRef } from "effect"
import { FleetError, what } from "./database.js"

/**
 * A host's place in the fleet: a row of `fleet_hosts` and a lease on it, renewed every
 * `renewEvery` for `leaseFor`, on the database's clock. The epoch is raised at every claim
 * of the row (this host's own, at start; a survivor's, when the lease lapsed), and every
 * write the host makes about its games names it (`fence`): a host that comes back after
 * the fleet claimed it (SIGSTOP, then SIGCONT) finds it has lost, and writes nothing.
 */

export interface FleetTimings {
  /** How often a host renews its lease, and looks for hosts whose lease lapsed. */
  readonly renewEvery: Duration.DurationInput
  /** How long a lease lasts: a host silent this long is taken for dead. */
  readonly leaseFor: Duration.DurationInput
  /** How long a place that matchmaking promised is held for its player. */
  readonly seatHeld: Duration.DurationInput
}

export const defaultFleetTimings: FleetTimings = { renewEvery: "5 seconds", leaseFor: "15 seconds", seatHeld: "15 seconds" }

/** A lease of `leaseFor` (`--lease`), renewed every third of it; places held as long. */
export const leaseTimings = (leaseFor: Duration.Duration): FleetTimings => ({
  renewEvery: Duration.millis(Math.max(1, Math.floor(Duration.toMillis(leaseFor) / 3))),
  leaseFor,
  seatHeld: leaseFor
})

/** What a host tells the fleet of itself. */
export interface HostCard {
  /** Its lobby, `http://HOST:PORT/`: where other hosts send players to its games' pages, and forward new games. */
  readonly lobbyUrl: string
  /** The address players reach its games at: `nuggets join ADDRESS PORT NAME`. */
  readonly joinAddress: string
  /** `--ports`, as given. */
  readonly ports: string | undefined
  readonly maxGames: number
}

export interface MembershipService {
  readonly hostId: string
  readonly timings: FleetTimings
  /** The epoch this host holds its row with. */
  readonly epoch: () => number
  /** Whether the lease is held now: renewed within its life, as this host's clock counts it. */
  readonly holding: () => boolean
  /**
   * Whether this host has renewed its lease without a miss for a whole lease: only then may
   * it take another's lapse for death. After the database was away, every lease lapsed, the
   * living's too: each must first have had the time to renew its own.
   */
  readonly steady: () => boolean
  /** `holding`, for those who wait on a change (readiness). */
  readonly held: SubscriptionRef.SubscriptionRef<boolean>
  /** Succeeds once the fleet has claimed this host (since it last joined): its games are no longer its own. */
  readonly lost: Effect.Effect<void>
  /** Joins again after a loss, at a new epoch: call it once this host's games are ended. */
  readonly rejoin: Effect.Effect<void, FleetError>
  /** Tells the fleet where this host's lobby is, once it listens: other hosts send players there. */
  readonly announce: (lobbyUrl: string) => Effect.Effect<void, FleetError>
  /** SQL that holds while this host still holds its row at its epoch: every write about its games is made under it. */
  readonly fence: () => Fragment
}

export class Membership extends Context.Tag("nuggets/fleet/Membership")<Membership, MembershipService>() {}

const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

/** A host's id: its machine's name and a few random characters, new at each start. */
const newHostId = (machine: string) =>
  Effect.gen(function*() {
    let suffix = ""
    for (let i = 0; i < 6; i++) suffix += idAlphabet[yield* Random.nextIntBetween(0, idAlphabet.length)]
    return `${machine.replace(/[^A-Za-z0-9.-]/g, "-").slice(0, 40) || "host"}-${suffix}`
  })

const databaseError = (doing: string) => (cause: unknown) =>
  new FleetError({ reason: "Database", message: `the fleet's database: cannot ${doing}: ${what((cause as { cause?: unknown }).cause ?? cause)}`, cause })

/**
 * This host in the fleet for as long as the scope lasts: its row written (a new epoch),
 * its lease renewed; the scope's end gives the row up (the fleet need not wait for the
 * lease to lapse).
 */
export const joinFleet = (
  card: HostCard,
  machine: string,
  timings: FleetTimings = defaultFleetTimings
): Effect.Effect<MembershipService, FleetError, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clock = yield* Effect.clock
    const hostId = yield* newHostId(machine)
    const leaseMs = Duration.toMillis(timings.leaseFor)
    const lease = sql.literal(`interval '${leaseMs} milliseconds'`)
    const [row] = yield* sql<{ epoch: number }>`INSERT INTO fleet_hosts
      (id, lobby_url, join_address, ports, max_games, epoch, lease_until)
      VALUES (${hostId}, ${card.lobbyUrl}, ${card.joinAddress}, ${card.ports ?? null}, ${card.maxGames}, 1, now() + ${lease})
      RETURNING epoch`.pipe(Effect.mapError(databaseError("join the fleet")))
    let epoch = row!.epoch
    let renewedAt = clock.unsafeCurrentTimeMillis()
    const held = yield* SubscriptionRef.make(true)
    let lost = yield* Deferred.make<void>()
    /** A lease counts as held until a renewal is due past its life; the database's clock may run a little ahead. */
    let claimed = false
    /** Since when every renewal has come through (none, just after one failed). */
    let renewingSince: number | undefined = clock.unsafeCurrentTimeMillis()
    const holding = () => !claimed && clock.unsafeCurrentTimeMillis() - renewedAt < leaseMs - Duration.toMillis(timings.renewEvery)

    const renew = Effect.gen(function*() {
      // Claimed: nothing to renew until this host has joined again.
      if (claimed) return
      const renewed = yield* sql<{ epoch: number }>`UPDATE fleet_hosts SET lease_until = now() + ${lease}
        WHERE id = ${hostId} AND epoch = ${epoch} AND NOT gone RETURNING epoch`.pipe(Effect.either)
      if (renewed._tag === "Right") {
        if (renewed.right.length === 0) {
          // Claimed by the fleet while this host was away: it holds nothing any more.
          claimed = true
          yield* Deferred.succeed(lost, undefined)
          yield* SubscriptionRef.set(held, false)
          return yield* Effect.logError(`this host's lease lapsed and the fleet claimed it (epoch ${epoch}): its games were ended for the fleet`)
        }
        renewedAt = clock.unsafeCurrentTimeMillis()
        renewingSince ??= renewedAt
      } else {
        renewingSince = undefined
        yield* Effect.logWarning(`the fleet's database: cannot renew this host's lease: ${what(renewed.left.cause ?? renewed.left)}`)
      }
      const now = holding()
      if (now !== (yield* SubscriptionRef.get(held))) {
        yield* SubscriptionRef.set(held, now)
        if (now) yield* Effect.logInfo("this host holds its lease again")
        else yield* Effect.logError("this host cannot renew its lease: it takes no new game and no new player")
      }
    })
    yield* Effect.sleep(timings.renewEvery).pipe(Effect.zipRight(renew), Effect.forever, Effect.forkScoped)

    /** After a loss, once this host's games are ended: its row claimed again, at a new epoch. */
    const rejoin = Effect.gen(function*() {
      const [again] = yield* sql<{ epoch: number }>`UPDATE fleet_hosts SET gone = false, epoch = epoch + 1, lease_until = now() + ${lease}
        WHERE id = ${hostId} RETURNING epoch`.pipe(Effect.mapError(databaseError("join the fleet again")))
      if (again === undefined) return yield* new FleetError({ reason: "Fenced", message: `the fleet's database: host ${hostId} is no longer in it` })
      epoch = again.epoch
      renewedAt = clock.unsafeCurrentTimeMillis()
      renewingSince = renewedAt
      claimed = false
      lost = yield* Deferred.make<void>()
      yield* SubscriptionRef.set(held, true)
      yield* Effect.logInfo(`joined the fleet again as ${hostId} (epoch ${epoch})`)
    })
    // Leaving: the row is given up at once, at this epoch only (one the fleet claimed is the fleet's).
    yield* Effect.addFinalizer(() =>
      sql`UPDATE fleet_hosts SET gone = true, lease_until = now() WHERE id = ${hostId} AND epoch = ${epoch}`.pipe(
        // Interruptible, so that the timeout can end it in the finalizer's uninterruptible region.
        Effect.interruptible,
        Effect.timeout("2 seconds"),
        Effect.ignore
      )
    )
    yield* Effect.logInfo(`joined the fleet as ${hostId} (epoch ${epoch})`)
    return {
      hostId,
      timings,
      epoch: () => epoch,
      holding,
      steady: () => renewingSince !== undefined && clock.unsafeCurrentTimeMillis() - renewingSince >= leaseMs,
      held,
      lost: Effect.suspend(() => Deferred.await(lost)),
      rejoin,
      announce: (lobbyUrl) =>
        sql`UPDATE fleet_hosts SET lobby_url = ${lobbyUrl} WHERE id = ${hostId}`.pipe(Effect.asVoid, Effect.mapError(databaseError("say where this host's lobby is"))),
      fence: () => sql`EXISTS (SELECT 1 FROM fleet_hosts WHERE id = ${hostId} AND epoch = ${epoch} AND NOT gone)`
    }
  })

export const membershipLayer = (card: HostCard, machine: string, timings?: FleetTimings) =>
  Layer.scoped(Membership, joinFleet(card, machine, timings))
