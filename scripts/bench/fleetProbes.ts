/**
 * What the fleet's bench watches it by, from outside: a host's lobby feed as a browser
 * reads it, PostgreSQL's CPU, and its own counts of what it did.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { cpuMicros } from "./process.js"

/** How long a game may take to show in another host's lobby before the bench gives up on it. */
const showDeadlineMs = 15_000

/**
 * A host's `/events`, read as a browser's lobby reads it: when each game's id was first
 * in a `games` event (`performance.now()`, as the chunk came).
 */
export class LobbyWatch {
  private readonly seen = new Map<string, number>()
  private readonly waiting = new Map<string, () => void>()
  private readonly abort = new AbortController()
  private failure: Error | undefined

  private constructor() {}

  static async open(lobby: URL): Promise<LobbyWatch> {
    const watch = new LobbyWatch()
    const response = await fetch(new URL("/events", lobby), { signal: watch.abort.signal })
    if (!response.ok || response.body === null) throw new Error(`${lobby}events answered ${response.status}`)
    void watch.read(response.body).catch((error: unknown) => {
      if (!watch.abort.signal.aborted) watch.failure = error instanceof Error ? error : new Error(String(error))
      for (const wake of watch.waiting.values()) wake()
    })
    return watch
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let text = ""
    for await (const chunk of body) {
      const at = performance.now()
      text += decoder.decode(chunk, { stream: true })
      const events = text.split("\n\n")
      text = events.pop()!
      for (const event of events) {
        const data = /^event: games\ndata: (.*)$/m.exec(event)?.[1]
        if (data === undefined) continue
        for (const game of (JSON.parse(data) as { games: ReadonlyArray<{ id: string }> }).games) {
          if (this.seen.has(game.id)) continue
          this.seen.set(game.id, at)
          this.waiting.get(game.id)?.()
        }
      }
    }
    throw new Error("the lobby's feed ended")
  }

  /** When game `id` first showed; fails after `showDeadlineMs`. */
  async shown(id: string): Promise<number> {
    if (!this.seen.has(id)) {
      let timer: ReturnType<typeof setTimeout> | undefined
      await new Promise<void>((resolve) => {
        this.waiting.set(id, resolve)
        timer = setTimeout(resolve, showDeadlineMs)
      }).finally(() => {
        clearTimeout(timer)
        this.waiting.delete(id)
      })
    }
    const at = this.seen.get(id)
    if (at === undefined) throw this.failure ?? new Error(`game ${id} did not show in another host's lobby within ${showDeadlineMs} ms`)
    return at
  }

  close(): void {
    this.abort.abort()
  }
}

/** The parent of process `pid`, from /proc/PID/stat (after the command name, which may hold spaces). */
const parentOf = (pid: string): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined // not a process, or one that ended meanwhile
  }
}

/**
 * The CPU of the PostgreSQL server whose cluster is in `dir`: its postmaster (its pid file
 * names it) and the processes it forked, the hosts' connections among them, µs.
 */
export const postgresCpuMicros = (dir: string): number => {
  const postmaster = Number(readFileSync(join(dir, "data", "postmaster.pid"), "utf8").split("\n")[0])
  const forked = readdirSync("/proc").filter((name) => /^\d+$/.test(name) && parentOf(name) === postmaster).map(Number)
  return [postmaster, ...forked].reduce((sum, pid) => {
    try {
      return sum + cpuMicros(pid).micros
    } catch {
      return sum // one that ended meanwhile
    }
  }, 0)
}

/**
 * The fleet's database's counts so far (pg_stat_database), read over a connection of the
 * bench's own to the server's own database. Each connection passes its counts on about
 * once a second, so a phase's figures are right to a second's work.
 */
export const databaseStats = async (serverUrl: string, database: URL) => {
  const { default: pg } = await import("pg")
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  const name = database.pathname.slice(1)
  return {
    read: async () => {
      const { rows } = await client.query<{ commits: string; inserted: string; updated: string }>(
        "SELECT xact_commit AS commits, tup_inserted AS inserted, tup_updated AS updated FROM pg_stat_database WHERE datname = $1",
        [name]
      )
      const row = rows[0]!
      return { commits: Number(row.commits), inserted: Number(row.inserted), updated: Number(row.updated) }
    },
    close: () => client.end()
  }
}
