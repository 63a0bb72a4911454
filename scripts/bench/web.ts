/**
 * What watching in the browser costs the game server, end to end: `nuggets serve --web` as
 * its own process, 21 players and a spectator over loopback UDP, and 0, 10 or 200
 * watchers reading `/watch` over real TCP connections. Against it: the same game with 26
 * players, that is five more UDP clients. Two ways to press keys:
 *   - fast: one key at a time, the next as soon as all clients have their DISPLAY (the
 *     bench's usual load; a watcher's cost is spread over many keys);
 *   - paced: a steady 200 keys/s (26 players pressing eight keys a second each, a busy
 *     game); here watchers cost per second, whatever the keys.
 * Watcher lag: from a key sent to the first frame, at a watcher, that shows its effect
 * (before the same player's next key; a large audience gets fewer frames, so some moves
 * are never shown on their own: that is the point).
 * `node --import tsx scripts/bench/web.ts [--quick] [MAP]` prints the figures.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { type ChildProcess, spawn } from "node:child_process"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Client, Load, pickKey, seededRandom } from "./load.js"
import { cpuMicros, root, type ServerProcess } from "./process.js"
import { bundleNuggets, endToEnd, type Nuggets, startRealServer, type Target } from "./server.js"
import { round, summarize } from "./stats.js"

/** `nuggets serve MAP --web 0`: the game server with the web beside it; its page's address from its log. */
const startWebServer = async (nuggets: Nuggets, mapFile: string): Promise<ServerProcess & { readonly url: string }> => {
  const server = await startRealServer(nuggets, mapFile, undefined, ["--web", "0"])
  // The log line may come a moment after the port line, on the other pipe.
  for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
    const url = /http:\/\/[^\s,]+/.exec(server.log())?.[0]
    if (url !== undefined) return { ...server, url }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await server.stop()
  throw new Error(`no web address in the log:\n${server.log()}`)
}

/**
 * Watchers in a process of their own, so that reading 200 streams does not slow the load
 * that presses the keys: plain TCP sockets asking `/watch` (HTTP/1.0, so the events come
 * unchunked), counting frames; the first few also report each frame's positions and when
 * it came (on the clock every process shares), to measure lag.
 */
const watchersProgram = `
const net = require("node:net")
const [url, count, sampled] = process.argv.slice(1)
const { hostname, port } = new URL(url)
let frames = 0
let open = 0
for (let i = 0; i < Number(count); i++) {
  const socket = net.connect(Number(port), hostname, () => {
    socket.write("GET /watch HTTP/1.0\\r\\nHost: " + hostname + ":" + port + "\\r\\n\\r\\n")
    if (++open === Number(count)) process.send({ ready: true })
  })
  let text = ""
  socket.setEncoding("utf8").on("data", (chunk) => {
    text += chunk
    for (let end = text.indexOf("\\n\\n"); end !== -1; end = text.indexOf("\\n\\n")) {
      const event = text.slice(0, end)
      text = text.slice(end + 2)
      if (!event.startsWith("event: frame\\n")) continue
      frames++
      if (i < Number(sampled)) {
        const at = performance.timeOrigin + performance.now()
        const cells = JSON.parse(event.slice("event: frame\\ndata: ".length)).players.map((p) => p.cell)
        process.send({ watcher: i, at, cells })
      }
    }
  })
}
process.on("message", () => process.send({ frames }))
`

/** What arrives from the watchers' process: a sampled frame, or the count asked for. */
type WatcherReport = { ready: true } | { watcher: number; at: number; cells: Array<number> } | { frames: number }

class Watchers {
  onFrame: ((report: { watcher: number; at: number; cells: Array<number> }) => void) | undefined
  private onCount: ((frames: number) => void) | undefined

  private constructor(private readonly child: ChildProcess, readonly count: number) {
    child.on("message", (report: WatcherReport) => {
      if ("cells" in report) this.onFrame?.(report)
      else if ("frames" in report) this.onCount?.(report.frames)
    })
  }

  static async open(url: string, count: number, sampled = 10): Promise<Watchers> {
    const child = spawn(process.execPath, ["-e", watchersProgram, url, String(count), String(sampled)], {
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    await new Promise<void>((resolve, reject) => {
      child.once("message", () => resolve())
      child.once("exit", (code) => reject(new Error(`the watchers' process exited with ${code}`)))
    })
    return new Watchers(child, count)
  }

  /** Frames received so far, over all watchers. */
  frames(): Promise<number> {
    return new Promise((resolve) => {
      this.onCount = resolve
      this.child.send("count")
    })
  }

  close(): void {
    this.child.kill()
  }
}

/** Now, on the clock every process shares (ms). */
const now = () => performance.timeOrigin + performance.now()

interface Scenario extends Target {
  readonly name: string
  readonly watchers: Watchers | undefined
}

/** NC, from the spectator's latest DISPLAY. */
const widthOf = (load: Load) => load.spectator.display!.indexOf(0x0a, "DISPLAY\n".length) - "DISPLAY\n".length

/** A player's gridpoint, from its latest DISPLAY. */
const cellOf = (client: Client, width: number): number => {
  const offset = client.position() - "DISPLAY\n".length
  return Math.floor(offset / (width + 1)) * width + (offset % (width + 1))
}

/** What one paced run measured; summed over the blocks of a scenario. */
class PacedTally {
  keys = 0
  sendingSeconds = 0
  seconds = 0
  cpu = 0
  frames = 0
  readonly lags: Array<number> = []

  figures(watchers: number): PacedFigures {
    const lag = this.lags.length > 0 ? summarize(this.lags) : undefined
    return {
      keysPerSecond: round(this.keys / this.sendingSeconds),
      cpuMillisPerSecond: round(this.cpu / 1000 / this.seconds, 2),
      cpuMicrosPerKey: round(this.cpu / this.keys),
      ...(lag ? { watcherLagMedianMs: round(lag.median), watcherLagP99Ms: round(lag.p99) } : {}),
      ...(watchers > 0 ? { framesPerWatcherPerSecond: round(this.frames / watchers / this.seconds) } : {})
    }
  }
}

/**
 * Keys at a steady `rate` from each player in turn for `seconds`, then a quiet moment; the
 * server's CPU over it all. With watchers, the lag from each key to the first frame, at a
 * sampled watcher, that shows its mover where the key took it.
 */
const paced = async (scenario: Scenario, tally: PacedTally, seconds: number, rate: number, random: (bound: number) => number) => {
  const { load, server, watchers } = scenario
  const width = widthOf(load)
  /** Keys whose effect some sampled watcher has yet to see: mover, where it went, when the key left. */
  const pending: Array<{ mover: number; cell: number; sentAt: number; seenBy: Set<number> }> = []
  if (watchers) {
    watchers.onFrame = ({ at, cells, watcher }) => {
      for (const key of pending) {
        if (!key.seenBy.has(watcher) && cells[key.mover] === key.cell && at >= key.sentAt) {
          key.seenBy.add(watcher)
          tally.lags.push(at - key.sentAt)
        }
      }
    }
  }
  const sentAt = new Map<Client, { at: number; from: number }>()
  load.players.forEach((player, index) => {
    player.onDisplay = () => {
      const sent = sentAt.get(player)
      if (sent === undefined || player.position() === sent.from) return
      sentAt.delete(player)
      if (watchers) pending.push({ mover: index, cell: cellOf(player, width), sentAt: sent.at, seenBy: new Set() })
    }
  })
  const framesBefore = watchers ? await watchers.frames() : 0
  const cpuBefore = cpuMicros(server.pid).micros
  const started = performance.now()
  const total = Math.round(seconds * rate)
  for (let k = 0; k < total; k++) {
    // On schedule, not after the previous key's answer: a steady rate, whatever the server does.
    const wait = started + (k * 1000) / rate - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const index = k % load.players.length
    const mover = load.players[index]!
    // Its earlier key is now overtaken: a frame that did not show it in time never will.
    for (let i = pending.length - 1; i >= 0; i--) if (pending[i]!.mover === index) pending.splice(i, 1)
    sentAt.set(mover, { at: now(), from: mover.position() })
    mover.send(`KEY ${pickKey(mover, random)}`)
  }
  const sending = (performance.now() - started) / 1000
  await load.quiet(150)
  tally.cpu += cpuMicros(server.pid).micros - cpuBefore
  tally.seconds += (performance.now() - started) / 1000
  tally.sendingSeconds += sending
  tally.keys += total
  if (watchers) tally.frames += (await watchers.frames()) - framesBefore
  for (const player of load.players) player.onDisplay = undefined
  if (watchers) watchers.onFrame = undefined
}

export interface PacedFigures {
  readonly keysPerSecond: number
  readonly cpuMillisPerSecond: number
  readonly cpuMicrosPerKey: number
  readonly watcherLagMedianMs?: number
  readonly watcherLagP99Ms?: number
  readonly framesPerWatcherPerSecond?: number
}

export interface WatcherBench {
  readonly map: string
  /** One key at a time, as fast as the server answers: CPU per key and latency to all DISPLAYs. */
  readonly fast: Record<string, { readonly cpuMicrosPerKey: number; readonly latencyMedianMicros: number; readonly latencyP99Micros: number }>
  /** A steady key rate: CPU per second and per key, and the watchers' lag. */
  readonly paced: Record<string, PacedFigures>
  /** CPU µs per key that 200 watchers, and 5 more UDP clients, add to the game: the goal is watchers < clients. */
  readonly added: {
    readonly fast: { readonly watchers10: number; readonly watchers200: number; readonly udpClients5: number }
    readonly paced: { readonly watchers10: number; readonly watchers200: number; readonly udpClients5: number }
  }
}

const plan: ReadonlyArray<readonly [name: string, players: number, watchers: number]> = [
  ["21 players", 21, 0],
  ["21 players + 10 watchers", 21, 10],
  ["21 players + 200 watchers", 21, 200],
  ["26 players (5 more UDP clients)", 26, 0]
]

/** The figures for one map. */
export const benchWatchers = async (
  mapFile: string,
  options: {
    readonly keys?: number
    readonly warmup?: number
    readonly pacedSeconds?: number
    readonly pacedRate?: number
    readonly blocks?: number
    /** How to run `nuggets` (see `bench.ts`); bundled here if not given. */
    readonly nuggets?: Nuggets
  } = {}
): Promise<WatcherBench> => {
  const { blocks = 5, keys = 2000, pacedRate = 200, pacedSeconds = 10, warmup = 300 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-web-"))
  const servers: Array<ServerProcess> = []
  const loads: Array<Load> = []
  const watcherSets: Array<Watchers> = []
  try {
    const nuggets = options.nuggets ?? (await bundleNuggets(dir))
    const scenarios: Array<Scenario> = []
    for (const [name, players, watcherCount] of plan) {
      const server = await startWebServer(nuggets, mapFile)
      servers.push(server)
      const watchers = watcherCount > 0 ? await Watchers.open(server.url, watcherCount) : undefined
      if (watchers) watcherSets.push(watchers)
      const load = await Load.join(server.port, players)
      loads.push(load)
      scenarios.push({ name, server, load, watchers })
    }
    const fastFigures = await endToEnd(scenarios, keys, warmup, 1)
    // In alternating blocks, like the fast run: a busy moment of the machine weighs on all alike.
    const tallies = scenarios.map(() => new PacedTally())
    const randoms = scenarios.map(() => seededRandom(2))
    for (let block = 0; block < blocks; block++) {
      for (const [i, scenario] of scenarios.entries()) await paced(scenario, tallies[i]!, pacedSeconds / blocks, pacedRate, randoms[i]!)
    }
    const pacedFigures = tallies.map((tally, i) => tally.figures(plan[i]![2]))
    const byName = <A>(figures: ReadonlyArray<A>) => Object.fromEntries(scenarios.map((scenario, i) => [scenario.name, figures[i]!]))
    const added = (figures: ReadonlyArray<{ readonly cpuMicrosPerKey: number }>) => ({
      watchers10: round(figures[1]!.cpuMicrosPerKey - figures[0]!.cpuMicrosPerKey),
      watchers200: round(figures[2]!.cpuMicrosPerKey - figures[0]!.cpuMicrosPerKey),
      udpClients5: round(figures[3]!.cpuMicrosPerKey - figures[0]!.cpuMicrosPerKey)
    })
    return {
      map: mapFile.split("/").pop()!,
      fast: byName(fastFigures.map(({ cpuMicrosPerKey, latencyMedianMicros, latencyP99Micros }) => ({ cpuMicrosPerKey, latencyMedianMicros, latencyP99Micros }))),
      paced: byName(pacedFigures),
      added: { fast: added(fastFigures), paced: added(pacedFigures) }
    }
  } finally {
    for (const watchers of watcherSets) watchers.close()
    await Promise.all(loads.map((load) => load.close()))
    await Promise.all(servers.map((server) => server.stop()))
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const quick = process.argv.includes("--quick")
  const mapFile = process.argv.slice(2).find((arg) => !arg.startsWith("--")) ?? join(root, "maps/main.txt")
  const figures = await benchWatchers(mapFile, quick ? { keys: 500, warmup: 100, pacedSeconds: 3 } : {})
  console.log(`Watchers on ${figures.map}: one key at a time, as fast as the server answers`)
  console.table(figures.fast)
  console.log("A steady key rate")
  console.table(figures.paced)
  console.log("CPU µs per key added (goal: 200 watchers < 5 UDP clients)")
  console.table(figures.added)
}
