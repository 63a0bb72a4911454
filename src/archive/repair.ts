import type * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { plural } from "../words.js"
import type { archiveFiles } from "./dataDir.js"
import { ArchiveError, what } from "./errors.js"
import type { GameId, Reconciled } from "./model.js"

/**
 * A damaged index in a data directory, set aside. The recordings are the truth and the index
 * is made from them, so a damaged `archive.db` is never mended in place: it is moved aside,
 * never deleted (it is the user's file), under a name that says what it is and since when,
 * and the start's `reconcile` makes a new one from the recordings, as it indexes any
 * recording with no row (a start cut short is finished by the next). Only the process that
 * holds the directory does this, at start, before the index is opened (`sqlite.ts`).
 */

type ArchiveFiles = ReturnType<typeof archiveFiles>

/** SQLite's own files beside a database: moved with it, so that the set aside opens as it was. */
const companions = ["-wal", "-shm"] as const

/** `20260601T143205Z`: when, in UTC, as ISO 8601 writes it without separators (safe in a file name). */
const utcStamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")

/**
 * Moves the damaged index aside, with its journal, to `archive.db.damaged-<when>` (and
 * `-2`, ... should that be taken); gives where it went. The journal goes first: a new index
 * must never find an old one's journal beside it. The mark, if any, goes last: it is done.
 */
export const moveAside = (files: ArchiveFiles, nowMs: number): Effect.Effect<string, ArchiveError> =>
  Effect.try({
    try: () => {
      const base = `${files.database}.damaged-${utcStamp(nowMs)}`
      let target = base
      for (let n = 2; [target, ...companions.map((each) => target + each)].some(existsSync); n++) target = `${base}-${n}`
      for (const each of companions) if (existsSync(files.database + each)) renameSync(files.database + each, target + each)
      renameSync(files.database, target)
      rmSync(files.damaged, { force: true })
      return target
    },
    catch: (cause) =>
      new ArchiveError({ reason: "Open", path: files.database, message: `${files.database} — damaged, and cannot be moved aside: ${what(cause)}`, cause })
  })

/**
 * The name of each game's map in a damaged index, by game, as far as it can still be read:
 * a name is the index's alone (a recording holds its map, not the name), and each game keeps
 * its own. Read from three places the damage may spare: the players (who carry it), the
 * index by map (which holds it, with the game's id), and the games themselves, which say it
 * last and so win. What the damage hides in all three is lost (see `reconcile`).
 */
export const formerMapNames = (sql: SqlClient.SqlClient): Effect.Effect<ReadonlyArray<readonly [GameId, string]>> => {
  type Named = { readonly id: GameId; readonly map_name: string }
  const sources = [
    sql<Named>`SELECT game_id AS id, map_name FROM players`,
    sql<Named>`SELECT id, map_name FROM games INDEXED BY games_by_map`,
    sql<Named>`SELECT id, map_name FROM games`
  ]
  return Effect.forEach(sources, (rows) => Effect.orElseSucceed(rows, () => [])).pipe(
    Effect.map((each) => each.flat().map((row) => [row.id, row.map_name] as const))
  )
}

/** What the mark left by damage found in use says (when, and the database's words); none when there is none. */
export const readMark = (files: ArchiveFiles): string | undefined => {
  try {
    return readFileSync(files.damaged, "utf8").trim()
  } catch {
    return undefined
  }
}

/** Leaves the mark that makes the next start set the index aside; fails with why it could not (a full disk, say). */
export const leaveMark = (files: ArchiveFiles, nowMs: number, words: string): Effect.Effect<void, string> =>
  Effect.try({
    try: () => writeFileSync(files.damaged, `${new Date(nowMs).toISOString()} ${words}\n`),
    catch: what
  })

/** A mark with no index beside it: of an index already set aside by a start cut short after. */
export const dropStaleMark = (files: ArchiveFiles): void => {
  if (!existsSync(files.database)) rmSync(files.damaged, { force: true })
}

/**
 * The one line that tells an operator the index was damaged: what was found, where the old
 * file went, and how many games the new one was made of. None when it was not.
 */
export const repairedLine = ({ indexed, repaired }: Reconciled): string | undefined =>
  repaired === undefined ? undefined : `the archive's index was damaged (${repaired.found}): it is kept as ${repaired.movedTo}, ` +
    `and a new one was made from the recordings: ${plural(indexed.length, "game")}`
