/** Reads a V8 .cpuprofile (from `node --cpu-prof`) and tells where the time went. */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { round } from "./stats.js"

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
  readonly children?: ReadonlyArray<number>
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** The main thread's .cpuprofile in `dir`: the largest (the module loader's thread writes one too). */
export const mainProfile = (dir: string): string | undefined =>
  readdirSync(dir)
    .filter((file) => file.endsWith(".cpuprofile"))
    .map((file) => join(dir, file))
    .sort((a, b) => statSync(b).size - statSync(a).size)[0]

/** Where a function lives, in a few words: our code by path, the rest by package. */
const placeOf = (url: string): string => {
  if (url === "") return "(vm)"
  if (url.startsWith("node:")) return url
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)
  if (pkg) return pkg[1]!
  const ours = /\/(src\/.*|scripts\/.*)$/.exec(url)
  return ours ? ours[1]! : url
}

export interface HotSpot {
  readonly function: string
  readonly where: string
  readonly selfMs: number
  readonly percent: number
}

/**
 * Self time by function, and by place (file or package), busiest first, idle excluded.
 * Only from the first sample in `startAt` (a path part, e.g. "/src/server/") on, so that
 * start-up (loading modules) does not drown the game.
 */
export const summarizeProfile = (file: string, startAt = "/src/server/", top = 20) => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const within = (id: number) => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)!.callFrame.url.includes(startAt)) return true
    }
    return false
  }
  const first = profile.samples.findIndex(within)
  const selfMicros = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    if (first !== -1 && i >= first) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const functions = new Map<string, { function: string; where: string; micros: number }>()
  const places = new Map<string, number>()
  let busy = 0
  for (const [id, micros] of selfMicros) {
    const frame = byId.get(id)!.callFrame
    if (frame.functionName === "(idle)") continue
    busy += micros
    const where = placeOf(frame.url)
    const key = `${frame.functionName}@${frame.url}:${frame.lineNumber}`
    const entry = functions.get(key) ?? { function: frame.functionName || "(anonymous)", where: `${where}:${frame.lineNumber + 1}`, micros: 0 }
    entry.micros += micros
    functions.set(key, entry)
    places.set(where, (places.get(where) ?? 0) + micros)
  }
  const percent = (micros: number) => round((100 * micros) / busy, 1)
  return {
    busyMs: round(busy / 1000),
    functions: [...functions.values()]
      .sort((a, b) => b.micros - a.micros)
      .slice(0, top)
      .map((entry): HotSpot => ({ function: entry.function, where: entry.where, selfMs: round(entry.micros / 1000), percent: percent(entry.micros) })),
    places: [...places.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([where, micros]) => ({ where, selfMs: round(micros / 1000), percent: percent(micros) }))
  }
}
