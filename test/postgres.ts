import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { systemProgram } from "../scripts/programs.js"

/**
 * A PostgreSQL server of the tests' own: Debian's `postgresql` (its `initdb` and `pg_ctl`,
 * in its versioned folder, not on PATH), a cluster made in a temporary folder, listening on
 * loopback on a free port, trusting local connections, stopped and removed at the end.
 * PostgreSQL refuses to run as root: as root, it runs as the `postgres` user the package
 * made. Started once per run (`global-setup.ts`); each test file makes a database of its own.
 */

export interface Postgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the server's own database, to make others from. */
  readonly url: string
  readonly port: number
  /** Where the cluster lives, and the socket folder beside it. */
  readonly dir: string
  /** `pg_ctl` with the cluster's folder, as the user that runs it: `restart`, `stop`, ... */
  readonly control: (...args: ReadonlyArray<string>) => void
  readonly stop: () => void
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

export const startPostgres = async (): Promise<Postgres> => {
  // Where `npm test` found them first, or the line that says how to install them.
  const bin = dirname(systemProgram("pg_ctl"))
  const asRoot = process.getuid?.() === 0
  const run = (program: string, args: ReadonlyArray<string>) => {
    const [command, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", join(bin, program), ...args]] : [join(bin, program), args]
    const result = spawnSync(command, argv, { encoding: "utf8" })
    if (result.status !== 0) throw new Error(`${program} ${args.join(" ")} failed: ${result.stderr || result.stdout}`)
  }
  const dir = mkdtempSync(join(tmpdir(), "nuggets-pg-"))
  if (asRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }))
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }))
    chownSync(dir, uid, gid)
  }
  chmodSync(dir, 0o700)
  const data = join(dir, "data")
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "--no-instructions", "-E", "UTF8", "--locale", "C.UTF-8"])
  const port = await freePort()
  const control = (...args: ReadonlyArray<string>) =>
    run("pg_ctl", [
      "-D", data,
      "-l", join(dir, "server.log"),
      "-w",
      "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
      ...args
    ])
  control("start")
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    control,
    stop: () => {
      try {
        control("stop", "-m", "immediate")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  }
}

/**
 * A database of its own on the run's server, for one test file: made with a fresh name,
 * dropped (with whatever still holds it) when `drop` is called.
 */
export const freshDatabase = async (serverUrl: string): Promise<{ readonly url: URL; readonly drop: () => Promise<void> }> => {
  const { default: pg } = await import("pg")
  const name = `nuggets_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}`)
  } finally {
    await admin.end()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    url,
    drop: async () => {
      const closing = new pg.Client({ connectionString: serverUrl })
      await closing.connect()
      try {
        await closing.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await closing.end()
      }
    }
  }
}
