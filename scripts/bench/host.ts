/**
 * `nuggets host` under the load it is made for: 100 games at once, 4 players in each at a
 * person's pace (a key every 250 to 750 ms, 2 a second on average: about 800 keys a second
 * in all), against a lone game (`nuggets serve --record`, as every hosted game is recorded)
 * with its 4 players at the same pace. Each player's latency is from its KEY to the next
 * DISPLAY it gets (every move key is answered with one; a DISPLAY caused by another's move
 * in between cuts a sample short, alike for both); the server's CPU per key over all
 * keys, timers included; the host's resident memory, and what a game adds to it (100
 * games against 1). The lone game and the host are measured in alternating blocks.
 * `node --import tsx scripts/bench/host.ts [--quick] [--games N]` prints the figures.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { type BlockFigures, PacedLoad } from "./paced.js"
import { cpuMicros, peakRssMB, root, rssMB, startProcess } from "./process.js"
import { bundleNuggets, type Nuggets, serverSeed } from "./server.js"
import { round, summarize } from "./stats.js"

/** How to run `nuggets`; `nodeArgs` (--cpu-prof, say) when node runs it, not the single executable. */
const commandOf = (nuggets: Nuggets, nodeArgs: ReadonlyArray<string> = []): { program: string; args: ReadonlyArray<string> } =>
  "binary" in nuggets
    ? { program: nuggets.binary, args: [] }
    : { program: process.execPath, args: [...nodeArgs, ...("bundle" in nuggets ? [nuggets.bundle] : ["--import", "tsx", "src/main.ts"])] }

export interface HostProcess {
  readonly pid: number
  /** Its lobby, `http://127.0.0.1:PORT/`. */
  readonly lobby: URL
  /** Its own games' ports (in a fleet, its lobby lists every host's games too). */
  readonly ports: ReadonlyArray<number>
  readonly stop: () => Promise<void>
}

export interface HostOptions {
  /** Node's own flags (--cpu-prof, say), when node runs it. */
  readonly nodeArgs?: ReadonlyArray<string>
  /** Games it may run at once: `games` unless said. */
  readonly maxGames?: number
  /** The fleet's PostgreSQL database it joins (`--database`), instead of a data directory of its own. */
  readonly database?: URL
}

/** `nuggets host --open N` on loopback with only main.txt to play: its N games' ports. */
export const startHost = async (nuggets: Nuggets, games: number, dir: string, options: HostOptions = {}): Promise<HostProcess> => {
  const maps = join(dir, `maps-${games}`)
  mkdirSync(maps, { recursive: true })
  copyFileSync(join(root, "maps/main.txt"), join(maps, "main.txt"))
  const { args, program } = commandOf(nuggets, options.nodeArgs)
  const child: ChildProcess = spawn(program, [
    ...args,
    "host",
    "--open", String(games),
    "--max-games", String(options.maxGames ?? games),
    "--maps", maps,
    ...(options.database ? ["--database", options.database.href] : ["--data", mkdtempSync(join(dir, "data-"))]),
    "--web", "127.0.0.1:0",
    "--host", "127.0.0.1",
    "--log-level", "warning"
  ], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  let stderr = ""
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-10_000)))
  // Should the bench itself die, its hosts go with it.
  const killIt = () => void child.kill("SIGKILL")
  process.once("exit", killIt)
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve)).finally(() => process.off("exit", killIt))
  const lobby = await new Promise<string>((resolve, reject) => {
    let stdout = ""
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout = (stdout + chunk).slice(-10_000)
      const found = /^Lobby: (http:\S+)$/m.exec(stdout)
      if (found) resolve(found[1]!)
    })
    void exited.then((code) => reject(new Error(`nuggets host exited with ${code}\n${stderr}`)))
  })
  const listed = (await (await fetch(new URL("/api/games", lobby))).json()) as { games: Array<{ port: number; page: string }> }
  return {
    pid: child.pid!,
    lobby: new URL(lobby),
    // Its own games' pages are on its own lobby (a path); another host's, a whole URL.
    ports: listed.games.filter((game) => game.page.startsWith("/")).map((game) => game.port),
    stop: async () => {
      child.kill("SIGTERM")
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000)
      await exited
      clearTimeout(timer)
    }
  }
}

/** The tick of the event-loop delay histogram behind a host's /metrics (prom-client's default), ms. */
const metricsLoopTickMs = 10

/**
 * How late the host's event loop ran since the last scrape, µs (beyond its tick): the p99
 * and the most, from its /metrics, whose every scrape starts the histogram afresh.
 */
export const hostLoopDelay = async (lobby: URL): Promise<{ readonly p99Micros: number; readonly maxMicros: number }> => {
  const text = await (await fetch(new URL("/metrics", lobby))).text()
  const seconds = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? NaN)
  const late = (name: string) => round(seconds(name) * 1e6 - metricsLoopTickMs * 1000)
  return { p99Micros: late("nodejs_eventloop_lag_p99_seconds"), maxMicros: late("nodejs_eventloop_lag_max_seconds") }
}

export interface PaceFigures {
  readonly games: number
  readonly players: number
  readonly keys: number
  readonly keysPerSecond: number
  readonly latencyMedianMicros: number
  readonly latencyP99Micros: number
  readonly cpuMicrosPerKey: number
  readonly rssMB: number
  readonly peakRssMB: number
}

/** A server under its players' load (in a process of their own): measured a block at a time, its players idle between. */
class Paced {
  private readonly blocks: Array<BlockFigures & { readonly cpuMicros: number }> = []

  private constructor(readonly pid: number, private readonly load: PacedLoad, readonly games: number, readonly players: number) {}

  static async join(pid: number, ports: ReadonlyArray<number>): Promise<Paced> {
    return new Paced(pid, await PacedLoad.join(ports, 4, serverSeed, 1), ports.length, 4 * ports.length)
  }

  /** `seconds` of keys; measured unless it is a warm-up. */
  async block(seconds: number, measured: boolean): Promise<void> {
    let cpu = 0
    const figures = await this.load.block(seconds, () => {
      const before = cpuMicros(this.pid).micros
      return () => void (cpu = cpuMicros(this.pid).micros - before)
    })
    if (measured) this.blocks.push({ ...figures, cpuMicros: cpu })
  }

  figures(): PaceFigures {
    const sum = (pick: (block: (typeof this.blocks)[number]) => number) => this.blocks.reduce((total, block) => total + pick(block), 0)
    const keys = sum((block) => block.keys)
    const latency = summarize(this.blocks.flatMap((block) => block.samples))
    return {
      games: this.games,
      players: this.players,
      keys,
      keysPerSecond: round(keys / sum((block) => block.seconds)),
      latencyMedianMicros: round(latency.median),
      latencyP99Micros: round(latency.p99),
      cpuMicrosPerKey: round(sum((block) => block.cpuMicros) / keys),
      rssMB: round(rssMB(this.pid)),
      peakRssMB: round(peakRssMB(this.pid))
    }
  }

  close(): Promise<void> {
    return this.load.close()
  }
}

export interface HostFigures {
  readonly lone: PaceFigures
  readonly hostOfOne: PaceFigures
  readonly host: PaceFigures
  /** What each game beyond the first adds to the host's resident memory, MB. */
  readonly rssPerGameMB: number
  readonly ratio: { readonly latencyP99: number; readonly cpuPerKey: number }
  readonly rssTargetMB: number
}

/**
 * The lone game and the host of `games` run side by side, measured in alternating blocks
 * (the lone game twice as long: it takes a hundredth of the keys), so that a busy moment of
 * the machine weighs on both alike; a host of one game first, alone, for what a game costs.
 */
export const benchHost = async (
  options: { readonly nuggets?: Nuggets; readonly games?: number; readonly warmup?: number; readonly seconds?: number; readonly blocks?: number } = {}
): Promise<HostFigures> => {
  const { blocks = 6, games = 100, seconds = 24, warmup = 10 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-host-"))
  const running: Array<{ stop: () => Promise<void> }> = []
  const loads: Array<Paced> = []
  const joined = async (pid: number, ports: ReadonlyArray<number>) => {
    const paced = await Paced.join(pid, ports)
    loads.push(paced)
    return paced
  }
  try {
    const nuggets = options.nuggets ?? (await bundleNuggets(dir))
    const { args, program } = commandOf(nuggets)
    const one = await startHost(nuggets, 1, dir)
    running.push(one)
    const ofOne = await joined(one.pid, one.ports)
    await ofOne.block(warmup, false)
    await ofOne.block(seconds / 2, true)
    const hostOfOne = ofOne.figures()
    await ofOne.close()
    await one.stop()

    const loneServer = await startProcess(
      [...args, "serve", join(root, "maps/main.txt"), String(serverSeed), "--host", "127.0.0.1", "--record", join(dir, "lone.ndjson")],
      program
    )
    running.push(loneServer)
    const many = await startHost(nuggets, games, dir)
    running.push(many)
    const lone = await joined(loneServer.pid, [loneServer.port])
    const hosted = await joined(many.pid, many.ports)
    await lone.block(warmup, false)
    await hosted.block(warmup, false)
    for (let block = 0; block < blocks; block++) {
      await lone.block((2 * seconds) / blocks, true)
      await hosted.block(seconds / blocks, true)
    }
    const [loneFigures, host] = [lone.figures(), hosted.figures()]
    return {
      lone: loneFigures,
      hostOfOne,
      host,
      rssPerGameMB: round((host.rssMB - hostOfOne.rssMB) / (games - 1), 2),
      ratio: {
        latencyP99: round(host.latencyP99Micros / loneFigures.latencyP99Micros, 2),
        cpuPerKey: round(host.cpuMicrosPerKey / loneFigures.cpuMicrosPerKey, 2)
      },
      rssTargetMB: 100 + 1.5 * games
    }
  } finally {
    await Promise.all(loads.map((load) => load.close().catch(() => undefined)))
    await Promise.all(running.map((each) => each.stop().catch(() => undefined)))
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The figures as a table, with the targets. */
export const hostTable = (figures: HostFigures) => {
  const row = (pick: (each: PaceFigures) => number | string, target = "") => ({
    "lone game (serve --record)": pick(figures.lone),
    "host, 1 game": pick(figures.hostOfOne),
    [`host, ${figures.host.games} games`]: pick(figures.host),
    target
  })
  return {
    "players": row((each) => each.players),
    "keys measured": row((each) => each.keys),
    "keys per second": row((each) => each.keysPerSecond, `about ${figures.host.games * 8}`),
    "latency median µs": row((each) => each.latencyMedianMicros),
    "latency p99 µs": row((each) => each.latencyP99Micros, `≤ 2x the lone game's: ${round(figures.lone.latencyP99Micros * 2)}`),
    "CPU µs per key": row((each) => each.cpuMicrosPerKey, `≤ 1.1x the lone game's: ${round(figures.lone.cpuMicrosPerKey * 1.1)}`),
    "RSS MB (at the end)": row((each) => each.rssMB, `≤ ${figures.rssTargetMB} (100 + 1.5 a game)`),
    "peak RSS MB": row((each) => each.peakRssMB)
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2)
  const quick = args.includes("--quick")
  const at = args.indexOf("--games")
  const games = at === -1 ? 100 : Number(args[at + 1])
  const figures = await benchHost({ games, ...(quick ? { warmup: 3, seconds: 8, blocks: 2 } : {}) })
  console.log(`nuggets host: ${figures.host.games} games of 4 players at a person's pace, against a lone game of 4`)
  console.table(hostTable(figures))
  console.log(
    `host / lone: latency p99 ${figures.ratio.latencyP99}x (target ≤ 2), CPU per key ${figures.ratio.cpuPerKey}x (target ≤ 1.1); ` +
      `a game adds ${figures.rssPerGameMB} MB (target ≤ 1.5)`
  )
}
