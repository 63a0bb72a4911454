import { Effect, Either, Option } from "effect"
import { existsSync, mkdirSync } from "node:fs"
import { readdir, readFile, rm } from "node:fs/promises"
import { basename, dirname, join, resolve } from "node:path"
import { openLineFile } from "../recording/writer.js"
import type { Recordings } from "./backend.js"
import { ArchiveError, UnreadableRecording } from "./errors.js"
import type { GameId } from "./model.js"

const extension = ".ndjson"

/** The recordings as files in a folder, `ID.ndjson` each (a data directory's `games/`). */
export const recordingFiles = (folder: string): Recordings => {
  const fileOf = (id: GameId) => join(folder, id + extension)
  const nameOf = (id: GameId) => `${basename(folder)}/${id}${extension}`
  const folderError = (cause: unknown) =>
    new ArchiveError({ reason: "Directory", path: folder, message: `${folder} — ${(cause as Error).message}`, cause })
  return {
    ids: Effect.tryPromise({
      try: () => readdir(folder, { withFileTypes: true }),
      catch: (cause) => cause as NodeJS.ErrnoException
    }).pipe(
      Effect.map((entries) => entries.filter((each) => each.isFile() && each.name.endsWith(extension)).map((each) => basename(each.name, extension))),
      // None yet: the folder is made when the first game starts.
      Effect.catchAll((cause) => cause.code === "ENOENT" ? Effect.succeed([]) : Effect.fail(folderError(cause)))
    ),
    read: (id) =>
      Effect.tryPromise({
        try: () => readFile(fileOf(id)),
        catch: (cause) => cause as NodeJS.ErrnoException
      }).pipe(
        Effect.map((bytes): Option.Option<Uint8Array> => Option.some(bytes)),
        Effect.catchAll((cause) =>
          cause.code === "ENOENT"
            ? Effect.succeedNone
            : Effect.fail(new UnreadableRecording({ file: nameOf(id), reason: `cannot be read: ${cause.message}`, cause }))
        )
      ),
    exists: (id) => Effect.sync(() => existsSync(fileOf(id))),
    // Made again if someone removed it while the host runs.
    prepare: Effect.try({ try: () => void mkdirSync(folder, { recursive: true, mode: 0o700 }), catch: folderError }),
    open: (id) => openLineFile(fileOf(id)),
    remove: (id) => Effect.ignore(Effect.tryPromise(() => rm(fileOf(id), { force: true }))),
    idAt: (path) => {
      const full = resolve(folder, path)
      return dirname(full) === folder && full.endsWith(extension)
        ? Either.right(basename(full, extension))
        : Either.left(`the archive indexes only the recordings (*${extension}) in ${folder}`)
    },
    nameOf
  }
}
