import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The fleet's own tables, on PostgreSQL beside the archive's (whose `games` is the index of
 * every game, in play or past). A migration, once released, is never edited.
 *
 * fleet_hosts: every host of the fleet: where its lobby is, the address players reach its
 *   games at, its capacity, and its lease (`lease_until`, on the database's clock) with the
 *   epoch raised at every claim of it; a host whose lease lapsed is claimed by one survivor
 *   (`gone`), which ends its games for the fleet.
 * fleet_games: the games being played, each on its host: what the lobby shows of it (the
 *   host's own JSON), and what matchmaking reads (its free places, players playing).
 * fleet_seats: places matchmaking promised, held a few seconds for the player to come.
 * recording_chunks: the recordings themselves, appended in batches as each game goes.
 */

const fleet = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE fleet_hosts (
    id TEXT PRIMARY KEY,
    lobby_url TEXT NOT NULL,
    join_address TEXT NOT NULL,
    ports TEXT,
    max_games INTEGER NOT NULL,
    epoch BIGINT NOT NULL,
    lease_until TIMESTAMPTZ NOT NULL,
    draining BOOLEAN NOT NULL DEFAULT false,
    gone BOOLEAN NOT NULL DEFAULT false
  )`
  yield* sql`CREATE INDEX fleet_hosts_lapsed ON fleet_hosts (lease_until) WHERE NOT gone`
  yield* sql`CREATE TABLE fleet_games (
    id TEXT PRIMARY KEY,
    host_id TEXT NOT NULL REFERENCES fleet_hosts (id),
    port INTEGER NOT NULL,
    shown JSONB NOT NULL,
    free_places INTEGER NOT NULL,
    playing INTEGER NOT NULL,
    started_ms BIGINT NOT NULL,
    over BOOLEAN NOT NULL
  )`
  yield* sql`CREATE INDEX fleet_games_by_host ON fleet_games (host_id)`
  yield* sql`CREATE TABLE fleet_seats (
    game_id TEXT NOT NULL REFERENCES fleet_games (id) ON DELETE CASCADE,
    held_until TIMESTAMPTZ NOT NULL
  )`
  yield* sql`CREATE INDEX fleet_seats_by_game ON fleet_seats (game_id, held_until)`
  yield* sql`CREATE TABLE recording_chunks (
    game_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    lines TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
  )`
})

export const fleetMigrations = Migrator.fromRecord({ "1_fleet": fleet })
