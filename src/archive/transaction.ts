import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Exit, Option } from "effect"

/**
 * `effect` in one transaction of the context's database (within one already begun, it is
 * part of that one). @effect/sql's `withTransaction` makes a COMMIT or a ROLLBACK that
 * fails a defect: with the disk full, SQLite refuses the COMMIT (SQLITE_FULL) and rolls the
 * transaction back itself, and the game's index write died with no word of the disk, its
 * clean-up with it. Here a COMMIT that fails is the error it is, and the ROLLBACK after any
 * failure is SQLite's advice: one the database made already fails harmlessly, and is let go.
 */
/** A ROLLBACK that failed because the database rolled back already is let go; any other is said, as the connection may still be in the transaction. */
const unlessRolledBack = (error: SqlError) => {
  const words = error.cause instanceof Error ? error.cause.message : error.message
  return /no transaction is active/i.test(words) ? Effect.void : Effect.logError(`the archive's transaction could not be rolled back: ${words}`)
}

export const transaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (within) =>
    Option.isSome(within) ? effect : Effect.scoped(
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const connection = yield* sql.reserve
          const run = (statement: string) => connection.executeUnprepared(statement, [], undefined)
          yield* run("BEGIN")
          const done = yield* restore(effect).pipe(
            Effect.zipLeft(run("COMMIT")),
            Effect.provideService(SqlClient.TransactionConnection, [connection, 0] as const),
            Effect.exit
          )
          if (Exit.isFailure(done)) yield* run("ROLLBACK").pipe(Effect.catchAll(unlessRolledBack))
          return yield* done
        })
      )
    ))
