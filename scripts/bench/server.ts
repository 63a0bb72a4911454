/** Section 2: the real `nuggets serve`, end to end over loopback UDP. */
import { join } from "node:path"
import { bundle } from "../build.js"
import { type Load, measureLatency, seededRandom } from "./load.js"
import { cpuMicros, peakRssMB, type ServerProcess, startProcess, statCpuMicros } from "./process.js"
import { round, summarize } from "./stats.js"

/**
 * How to run `nuggets`: the esbuild bundle the single executable is made of (what users
 * run), or from source with tsx (readable names in a CPU profile; tsx adds ~90 MB of RSS).
 */
export type Nuggets = { readonly bundle: string } | { readonly fromSource: true }

export const bundleNuggets = async (dir: string): Promise<Nuggets> => {
  const file = join(dir, "nuggets.cjs")
  await bundle(file)
  return { bundle: file }
}

/** `nuggets serve map 1 --host 127.0.0.1` as its own process; `profileDir` adds --cpu-prof. */
export const startRealServer = (nuggets: Nuggets, mapFile: string, profileDir?: string): Promise<ServerProcess> =>
  startProcess([
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    ...("bundle" in nuggets ? [nuggets.bundle] : ["--import", "tsx", "src/main.ts"]),
    "serve",
    mapFile,
    "1",
    "--host",
    "127.0.0.1"
  ])

export interface EndToEnd {
  readonly keys: number
  readonly latencyMedianMicros: number
  readonly latencyP99Micros: number
  /** Server CPU over the measured keys only, per key. */
  readonly cpuMicrosPerKey: number
  readonly cpuSource: "schedstat" | "stat"
  /** The same from utime+stime (10 ms ticks): a cross-check. */
  readonly cpuMicrosPerKeyFromTicks: number
  /** Payload bytes the 27 clients received, per key. */
  readonly bytesPerKey: number
  readonly peakRssMB: number
  /** Keys after which not every client got a DISPLAY within a second. */
  readonly incomplete: number
}

/**
 * `warmup` keys first (the JIT settles), then `keys` measured one at a time: latency to
 * all-27-updated, and the server's CPU read before and after them.
 */
export const endToEnd = async (
  server: ServerProcess,
  load: Load,
  keys: number,
  warmup: number,
  seed: number
): Promise<EndToEnd> => {
  const random = seededRandom(seed)
  await measureLatency(load, warmup, random)
  const bytesBefore = load.bytes()
  const cpuBefore = cpuMicros(server.pid)
  const ticksBefore = statCpuMicros(server.pid)
  const run = await measureLatency(load, keys, random)
  const cpuAfter = cpuMicros(server.pid)
  const ticksAfter = statCpuMicros(server.pid)
  const bytes = load.bytes() - bytesBefore
  const latency = summarize(run.samples)
  return {
    keys,
    latencyMedianMicros: round(latency.median),
    latencyP99Micros: round(latency.p99),
    cpuMicrosPerKey: round((cpuAfter.micros - cpuBefore.micros) / keys),
    cpuSource: cpuAfter.source,
    cpuMicrosPerKeyFromTicks: round((ticksAfter - ticksBefore) / keys),
    bytesPerKey: Math.round(bytes / keys),
    peakRssMB: round(peakRssMB(server.pid)),
    incomplete: run.incomplete
  }
}
