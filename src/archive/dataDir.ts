import { isAbsolute, join, resolve } from "node:path"

/**
 * Where a host keeps its data (the recordings and their index): `--data DIR` when given,
 * else the XDG base directory convention, `$XDG_DATA_HOME/nuggets`, else
 * `~/.local/share/nuggets`. Pure: the caller passes the environment in.
 */
export interface DataDirEnvironment {
  /** What `--data` said, if it was given. */
  readonly flag: string | undefined
  readonly env: { readonly XDG_DATA_HOME?: string | undefined }
  /** The user's home folder (`os.homedir()`). */
  readonly home: string
  /** What a relative `--data` is relative to (`process.cwd()`). */
  readonly cwd: string
}

export const appName = "nuggets"

export const dataDirectory = ({ flag, env, home, cwd }: DataDirEnvironment): string => {
  if (flag !== undefined) return resolve(cwd, flag)
  const xdg = env.XDG_DATA_HOME
  // The convention: a relative (or empty) value is invalid and ignored.
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, appName)
  return join(home, ".local", "share", appName)
}

/** The archive's own files in a data directory; the recordings are under `games/`. */
export const archiveFiles = (dataDir: string) => ({
  games: join(dataDir, "games"),
  database: join(dataDir, "archive.db"),
  lock: join(dataDir, "archive.lock"),
  /** The PID of the process holding the lock, for a second one to name it. */
  holder: join(dataDir, "archive.pid"),
  /** Left when the index was found damaged while in use: the next start makes it again (`repair.ts`). */
  damaged: join(dataDir, "archive.damaged")
})
