/** Section 2: the real `nuggets serve`, end to end over loopback UDP. */
import { join } from "node:path"
import { bundle, buildExecutable } from "../build.js"
import { type Load, measureLatency, seededRandom } from "./load.js"
import { cpuMicros, mainThreadCpuMicros, peakRssMB, residentMB, type ServerProcess, startProcess, statCpuMicros } from "./process.js"
import type { ShadowGame } from "./shadow.js"
import { round, summarize } from "./stats.js"

/** The seed every bench server is started with (`serve MAP 1`): the shadow game starts from it too. */
export const serverSeed = 1

/**
 * How to run `nuggets`: the single executable (what users run), the esbuild bundle it is
 * made of run by node (node compiles it at start: about 20 MB more RSS, kept by the
 * allocator), or from source with tsx (readable names in a CPU profile; tsx adds ~90 MB).
 */
export type Nuggets = { readonly binary: string } | { readonly bundle: string } | { readonly fromSource: true }

/** The single executable, built into `dir` as `npm run build` builds it. */
export const binaryNuggets = async (dir: string): Promise<Nuggets> => ({
  binary: await buildExecutable(join(dir, "nuggets"), join(dir, "build"))
})

export const bundleNuggets = async (dir: string): Promise<Nuggets> => {
  const file = join(dir, "nuggets.cjs")
  await bundle(file)
  return { bundle: file }
}

/** `nuggets serve map 1 --host 127.0.0.1 [more]` as its own process; `profileDir` adds --cpu-prof. */
export const startRealServer = (
  nuggets: Nuggets,
  mapFile: string,
  profileDir?: string,
  more: ReadonlyArray<string> = []
): Promise<ServerProcess> =>
{
  const serve = ["serve", mapFile, String(serverSeed), "--host", "127.0.0.1", ...more]
  if ("binary" in nuggets) return startProcess(serve, nuggets.binary)
  return startProcess([
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    ...("bundle" in nuggets ? [nuggets.bundle] : ["--import", "tsx", "src/main.ts"]),
    ...serve
  ])
}

export interface EndToEnd {
  readonly keys: number
  readonly latencyMedianMicros: number
  readonly latencyP99Micros: number
  /** Server CPU over the measured keys only, per key. */
  readonly cpuMicrosPerKey: number
  readonly cpuSource: "schedstat" | "stat"
  /** The same from utime+stime (10 ms ticks): a cross-check. */
  readonly cpuMicrosPerKeyFromTicks: number
  /** Of `cpuMicrosPerKey`, the main thread's share (the rest: GC and libuv helper threads). */
  readonly mainThreadCpuMicrosPerKey: number
  /** Datagrams the 27 clients received, per key. */
  readonly datagramsPerKey: number
  /** Payload bytes the 27 clients received, per key. */
  readonly bytesPerKey: number
  readonly peakRssMB: number
  /** Resident at the end of the run: the heaps (anonymous) and the program's pages (file-backed). */
  readonly residentAnonymousMB: number
  readonly residentFileBackedMB: number
  /** Keys after which not every client owed a DISPLAY got one within a second. */
  readonly incomplete: number
  /** Server CPU per key over the warm-up, the game's first keys (the JIT compiles, sight is worked out spot by spot). */
  readonly warmupCpuMicrosPerKey: number
}

/**
 * A server under load: its process, the 27 clients joined to it, and for our server the
 * shadow game that says whom each key owes a DISPLAY (the stand-in owes all 27).
 */
export interface Target {
  readonly server: ServerProcess
  readonly load: Load
  readonly shadow?: ShadowGame
}

class Tally {
  readonly samples: Array<number> = []
  incomplete = 0
  keys = 0
  cpu = 0
  ticks = 0
  mainThread = 0
  datagrams = 0
  bytes = 0
  source: "schedstat" | "stat" = "schedstat"

  async measure({ load, server, shadow }: Target, keys: number, random: (bound: number) => number): Promise<void> {
    const datagrams = load.datagrams()
    const bytes = load.bytes()
    const cpu = cpuMicros(server.pid)
    const ticks = statCpuMicros(server.pid)
    const mainThread = mainThreadCpuMicros(server.pid)
    const run = await measureLatency(load, keys, random, shadow)
    const cpuAfter = cpuMicros(server.pid)
    this.cpu += cpuAfter.micros - cpu.micros
    this.source = cpuAfter.source
    this.ticks += statCpuMicros(server.pid) - ticks
    this.mainThread += mainThreadCpuMicros(server.pid) - mainThread
    this.datagrams += load.datagrams() - datagrams
    this.bytes += load.bytes() - bytes
    this.keys += run.sent
    this.samples.push(...run.samples)
    this.incomplete += run.incomplete
  }

  figures(server: ServerProcess, warmup: Tally): EndToEnd {
    const latency = summarize(this.samples)
    const resident = residentMB(server.pid)
    return {
      keys: this.keys,
      latencyMedianMicros: round(latency.median),
      latencyP99Micros: round(latency.p99),
      cpuMicrosPerKey: round(this.cpu / this.keys),
      cpuSource: this.source,
      cpuMicrosPerKeyFromTicks: round(this.ticks / this.keys),
      mainThreadCpuMicrosPerKey: round(this.mainThread / this.keys),
      datagramsPerKey: round(this.datagrams / this.keys, 2),
      bytesPerKey: Math.round(this.bytes / this.keys),
      peakRssMB: round(peakRssMB(server.pid)),
      residentAnonymousMB: round(resident.anonymous),
      residentFileBackedMB: round(resident.fileBacked),
      incomplete: this.incomplete,
      warmupCpuMicrosPerKey: round(warmup.cpu / Math.max(1, warmup.keys))
    }
  }
}

/**
 * `warmup` keys on each target first (the JIT settles), then `keys` on each measured one at
 * a time: latency until all it owes a DISPLAY have one, and the server's CPU read before and
 * after. Warm-up and measure alike go in alternating blocks to each target, so that a busy
 * moment of the machine weighs on all of them alike and their ratio holds, and each server
 * waits as long between its blocks (warmed up all at once, the first server warmed then
 * waited for the others' warm-ups, and came back the slower for a while).
 */
export const endToEnd = async (
  targets: ReadonlyArray<Target>,
  keys: number,
  warmup: number,
  seed: number,
  blocks = 10
): Promise<Array<EndToEnd>> => {
  // The same keys for every target: two servers of the same game then play the same game.
  const randoms = targets.map(() => seededRandom(seed))
  const blockSize = Math.max(1, Math.ceil(keys / blocks))
  const warmups = targets.map(() => new Tally())
  for (let done = 0; done < warmup; done += blockSize) {
    for (const [i, target] of targets.entries()) await warmups[i]!.measure(target, Math.min(blockSize, warmup - done), randoms[i]!)
  }
  const tallies = targets.map(() => new Tally())
  for (let block = 0; block < blocks; block++) {
    const size = Math.floor(keys / blocks) + (block < keys % blocks ? 1 : 0)
    for (const [i, target] of targets.entries()) await tallies[i]!.measure(target, size, randoms[i]!)
  }
  return tallies.map((tally, i) => tally.figures(targets[i]!.server, warmups[i]!))
}

/** `nuggets serve MAP --web 0`: the game server with the web beside it; its page's address from its output. */
export const startWebServer = async (nuggets: Nuggets, mapFile: string): Promise<ServerProcess & { readonly url: string }> => {
  const server = await startRealServer(nuggets, mapFile, undefined, ["--web", "0"])
  // The address may come a moment after the port line, in the log on the other pipe.
  for (const deadline = Date.now() + 5000; Date.now() < deadline;) {
    const url = /http:\/\/[^\s,]+/.exec(server.log())?.[0]
    if (url !== undefined) return { ...server, url }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  await server.stop()
  throw new Error(`no web address in the log:\n${server.log()}`)
}
