/**
 * `npm run bench [-- --quick] [-- --profile] [-- --no-core] [-- --no-web] [-- --no-kit] [-- --no-host] [-- --no-ceiling]
 * [-- --no-archive] [-- --no-fleet]`: prints the figures and writes them to bench/results.json; never asserts them.
 *   1. Core: cost per keystroke (a move, and the views it changed), in process; 1b. what --record adds.
 *   2. Server end to end: the real `nuggets serve` process, 26 players + spectator over loopback UDP;
 *      a key is answered by a DISPLAY to those whose view it changed (a shadow game says which).
 *   3. The I/O floor: the same load against a stand-in that only sends 27 prebuilt DISPLAYs per KEY,
 *      as a server that sends everyone a DISPLAY after every key must at least.
 *   4. Saturation: keys per second with 26 players pressing as fast as the server answers.
 *   5. Watchers in the browser (`serve --web`): CPU per UDP key and a probe's latency with 0, 200 and 1,000;
 *      a page soak: 10,000 pages (2,000 with --quick) that open /play, SPECTATE and leave: pages per
 *      second, CPU per page, resident memory at the start, at the peak and after (--no-web skips both).
 *   6. The kit: check server's time to a verdict on our server and on silent, hung and flooding
 *      ones; check client's on our join (not with --quick).
 *   7. Hosting many games (`nuggets host`): 100 games of 4 players at a person's pace (800 keys
 *      a second) against a lone game of 4: latency p99, CPU per key, resident memory (--no-host).
 *   7b. The ceiling of one host, its players included: hosts of 100 to 1,000 games (200 and 400
 *      with --quick) until the p99 is over 10 ms; the most held, and its memory (--no-ceiling).
 *   8. The archive of 100,000 games (10,000 with --quick), on SQLite and on PostgreSQL: a
 *      filtered page, the leaderboard, the start (--no-archive); 8b. a start that finds the
 *      index of 1,000 games damaged (200 with --quick) and makes it again.
 *   9. A fleet: 3 hosts × 100 games, their players at a person's pace, on one PostgreSQL:
 *      matchmaking's time, the lobby's staleness from one host to another (--no-fleet).
 * Sections 8 and 9 start a PostgreSQL server of their own (test/postgres.ts: Debian's
 * `postgresql`), once; without the package they say so and measure SQLite alone.
 * The server is the single executable, built as `npm run build` builds it; --bundle runs the
 * esbuild bundle it is made of with node instead, --from-source runs the source with tsx.
 * --profile runs it from source under --cpu-prof (its figures are then slower), without the
 * saturation run so that the profile is of keys one at a time, and prints its hot spots.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { type ArchiveFigures, benchArchive, filteredPage } from "./bench/archive.js"
import { benchCeiling, type CeilingFigures, ceilingTable } from "./bench/ceiling.js"
import { benchCore } from "./bench/core.js"
import { benchHeal } from "./bench/heal.js"
import { benchHost, type HostFigures, hostTable } from "./bench/host.js"
import { benchKit, type KitFigures } from "./bench/kit.js"
import { benchRecording } from "./bench/recording.js"
import { bundleFloorServer, startFloorServer } from "./bench/floor.js"
import { benchFleet, type FleetFigures, fleetLines, fleetTable, quickFleet } from "./bench/fleet.js"
import { Load } from "./bench/load.js"
import { peakRssMB, root } from "./bench/process.js"
import { mainProfile, summarizeProfile } from "./bench/profile.js"
import { benchSaturation, type Saturation } from "./bench/saturation.js"
import { binaryNuggets, bundleNuggets, endToEnd, type EndToEnd, type Nuggets, serverSeed, startRealServer } from "./bench/server.js"
import { ShadowGame } from "./bench/shadow.js"
import { round } from "./bench/stats.js"
import { benchPageSoak, type PageSoakFigures, rssBackWithinMB } from "./bench/pages.js"
import { benchWatchers, type WatcherFigures } from "./bench/web.js"
import { type Postgres, startPostgres } from "../test/postgres.js"

const args = new Set(process.argv.slice(2))
const quick = args.has("--quick")
const profile = args.has("--profile")
const fromSource = profile || args.has("--from-source")
const maps = ["main.txt", "large.txt"]
const keys = quick ? 300 : 4000
const players = 26
// Our server settles over about 4,000 keys (the JIT compiles; each spot's sight set, and
// each step's change in sight, is worked out the first time a player stands there):
// measured in blocks of 2,000 keys from the first, 180, 98, then 85-94 µs per key; the
// stand-in settles at once (204, then 173-182). Some runs settle later still, so 4,000 keys
// are measured. The warm-up's own cost is shown beside.
const warmup = quick ? 100 : 4000
const saturationSeconds = quick ? 1 : 3
const seed = 1

const mapPath = (map: string) => join(root, "maps", map)

interface MapFigures {
  readonly server: EndToEnd & { readonly peakRssMBAfterSaturation: number }
  /** The same server recording the game (`--record`). */
  readonly recording: EndToEnd
  readonly saturation: Saturation | undefined
  readonly floor: EndToEnd
  readonly ratio: {
    readonly cpu: number
    readonly latencyMedian: number
    readonly latencyP99: number
    readonly recordingCpu: number
    readonly rss: number
  }
  readonly profile?: ReturnType<typeof summarizeProfile>
}

const work = mkdtempSync(join(tmpdir(), "nuggets-bench-"))
const nuggets: Nuggets = fromSource
  ? { fromSource: true }
  : args.has("--bundle")
  ? await bundleNuggets(work)
  : await binaryNuggets(work)
const floorScript = await bundleFloorServer(work)

/** Where the server's CPU profile goes, with --profile. */
const profileDir = (map: string) => (profile ? join(work, `profile-${map}`) : undefined)

const benchMap = async (map: string): Promise<MapFigures> => {
  const server = await startRealServer(nuggets, mapPath(map), profileDir(map))
  const recordingServer = await startRealServer(nuggets, mapPath(map), undefined, ["--record", join(work, `${map}.ndjson`)])
  const floorServer = await startFloorServer(floorScript, mapPath(map)).catch(async (error: unknown) => {
    await Promise.all([server.stop(), recordingServer.stop()])
    throw error
  })
  try {
    const shadow = () => ShadowGame.start(mapPath(map), serverSeed, players)
    const real = { server, load: await Load.join(server.port, players), shadow: shadow() }
    const floor = { server: floorServer, load: await Load.join(floorServer.port, players) }
    const recording = { server: recordingServer, load: await Load.join(recordingServer.port, players), shadow: shadow() }
    const [serverFigures, floorFigures, recordingFigures] = await endToEnd([real, floor, recording], keys, warmup, seed)
    await floor.load.close()
    await recording.load.close()
    const saturation = profile ? undefined : await benchSaturation(server, real.load, saturationSeconds, seed)
    const peakAfterSaturation = round(peakRssMB(server.pid))
    await real.load.close()
    return {
      server: { ...serverFigures!, peakRssMBAfterSaturation: peakAfterSaturation },
      recording: recordingFigures!,
      saturation,
      floor: floorFigures!,
      ratio: {
        cpu: round(serverFigures!.cpuMicrosPerKey / floorFigures!.cpuMicrosPerKey, 2),
        latencyMedian: round(serverFigures!.latencyMedianMicros / floorFigures!.latencyMedianMicros, 2),
        latencyP99: round(serverFigures!.latencyP99Micros / floorFigures!.latencyP99Micros, 2),
        recordingCpu: round(recordingFigures!.cpuMicrosPerKey / serverFigures!.cpuMicrosPerKey, 3),
        rss: round(serverFigures!.peakRssMB / floorFigures!.peakRssMB, 2)
      }
    }
  } finally {
    await Promise.all([server.stop(), floorServer.stop(), recordingServer.stop()])
  }
}

const core = args.has("--no-core")
  ? []
  : [benchCore(mapPath("main.txt"), quick ? 2000 : 20_000), benchCore(mapPath("large.txt"), quick ? 1000 : 10_000)]
if (core.length > 0) {
  console.log("1. Core: cost per keystroke (a move, and the DISPLAYs it owes brought up to date)")
  console.table(core)
}
const recordingCost = args.has("--no-core")
  ? []
  : [await benchRecording(mapPath("main.txt"), quick ? 2000 : 20_000), await benchRecording(mapPath("large.txt"), quick ? 1000 : 5000)]
if (recordingCost.length > 0) {
  console.log("1b. What --record adds per keystroke, in process (the game host with sends that cost nothing; best of 5)")
  console.table(recordingCost)
}

const figures: Record<string, MapFigures> = {}
for (const map of maps) {
  process.stderr.write(`bench: ${map}: server and floor, then saturation...\n`)
  const measured = await benchMap(map)
  // The profile is written when the server exits.
  const dir = profileDir(map)
  const profileFile = dir === undefined ? undefined : mainProfile(dir)
  figures[map] = profileFile ? { ...measured, profile: summarizeProfile(profileFile) } : measured
}

const row = (pick: (figures: MapFigures) => number | string, target = "") =>
  Object.fromEntries([...maps.map((map) => [map, pick(figures[map]!)]), ["target", target]])

console.log(
  `\n2-4. End to end over loopback UDP: ${players} players + 1 spectator, ${keys} keys one at a time` +
    ` (after ${warmup} to warm up); saturation ${saturationSeconds} s${profile ? "; SERVER PROFILED: slower than normal" : ""}` +
    `\n     latency: from KEY until every client it owes a DISPLAY has it (the floor owes all 27); before issue 26 the` +
    ` server sent all 27 too: 45.6 KB and 27.9 datagrams per key on main.txt`
)
console.table({
  "server: all-owed-updated latency median µs": row((f) => f.server.latencyMedianMicros, "< 500 (main)"),
  "server: latency p99 µs": row((f) => f.server.latencyP99Micros, "≤ floor's"),
  "server: CPU µs per key": row((f) => f.server.cpuMicrosPerKey, "≤ 0.5x floor"),
  "server: of which main thread µs per key": row((f) => f.server.mainThreadCpuMicrosPerKey),
  "server | floor: CPU µs per key over the warm-up": row((f) => `${f.server.warmupCpuMicrosPerKey} | ${f.floor.warmupCpuMicrosPerKey}`),
  "server: datagrams per key": row((f) => f.server.datagramsPerKey),
  "server: bytes per key": row((f) => f.server.bytesPerKey, "≤ 15,200 (main: a third of 45.6 KB)"),
  "floor: all-27-updated latency median µs": row((f) => f.floor.latencyMedianMicros),
  "floor: latency p99 µs": row((f) => f.floor.latencyP99Micros),
  "floor: CPU µs per key": row((f) => f.floor.cpuMicrosPerKey),
  "floor: of which main thread µs per key": row((f) => f.floor.mainThreadCpuMicrosPerKey),
  "floor: datagrams per key": row((f) => f.floor.datagramsPerKey),
  "floor: bytes per key": row((f) => f.floor.bytesPerKey),
  "server / floor CPU per key": row((f) => f.ratio.cpu, "≤ 0.5"),
  "server / floor latency median": row((f) => f.ratio.latencyMedian),
  "server / floor latency p99": row((f) => f.ratio.latencyP99, "≤ 1"),
  "server --record: CPU µs per key": row((f) => f.recording.cpuMicrosPerKey),
  "server --record / server CPU per key": row((f) => f.ratio.recordingCpu, "≤ 1.05"),
  "server peak RSS MB (latency run)": row((f) => f.server.peakRssMB, "< 150 (large)"),
  "floor peak RSS MB (latency run)": row((f) => f.floor.peakRssMB),
  "server / floor peak RSS": row((f) => f.ratio.rss, "≤ 1.25"),
  "server | floor resident at the end, anonymous MB (the heaps)": row((f) => `${f.server.residentAnonymousMB} | ${f.floor.residentAnonymousMB}`),
  "server | floor resident at the end, file-backed MB (the program)": row((f) => `${f.server.residentFileBackedMB} | ${f.floor.residentFileBackedMB}`),
  "server peak RSS MB (after saturation)": row((f) => f.server.peakRssMBAfterSaturation),
  "saturation: keys per second": row((f) => f.saturation?.keysPerSecond ?? "-", "near 1,560 (26 players × the key limit of 60)"),
  "saturation: server CPU µs per key": row((f) => f.saturation?.cpuMicrosPerKey ?? "-"),
  "saturation: server CPU share of a core": row((f) => f.saturation?.serverCpuShare ?? "-"),
  "saturation: views left stale (Ctrl-L shows otherwise)": row((f) => f.saturation?.staleViews ?? "-", "0"),
  "keys with a DISPLAY owed missing (server | floor)": row((f) => `${f.server.incomplete} | ${f.floor.incomplete}`, "0 | 0")
})

// 5. Watchers in the browser: what they cost the UDP game, end to end.
const web: Record<string, ReadonlyArray<WatcherFigures>> = {}
if (!args.has("--no-web") && !profile) {
  for (const map of maps) {
    process.stderr.write(`bench: ${map}: watchers in the browser...\n`)
    web[map] = await benchWatchers(mapPath(map), { nuggets, ...(quick ? { seconds: 6 } : {}) })
    console.log(`\n5. Watchers on ${map}: 21 players at 200 keys/s in all, a probe at 20 Ctrl-L/s; 0, 200 and 1,000 browser watchers`)
    console.table(web[map])
  }
}
let pageSoak: PageSoakFigures | undefined
if (!args.has("--no-web") && !profile) {
  const pages = quick ? 2000 : 10_000
  process.stderr.write(`bench: main.txt: ${pages.toLocaleString("en")} pages in the browser...\n`)
  pageSoak = await benchPageSoak(mapPath("main.txt"), { nuggets, pages })
  console.log(
    `\n5b. Page soak on main.txt: ${pages.toLocaleString("en")} pages, ten at a time, that open /play, SPECTATE until the GRID` +
      `\n    and leave (half with a reset, half with an orderly close); memory after: once within ${rssBackWithinMB} MB of the start, or 20 s`
  )
  console.table({
    "pages per second": pageSoak.pagesPerSecond,
    "server CPU µs per page": pageSoak.cpuMicrosPerPage,
    "server RSS MB at the start": pageSoak.rssStartMB,
    "server RSS MB at the peak": pageSoak.rssPeakMB,
    "server RSS MB after": pageSoak.rssAfterMB,
    "seconds waited for it": pageSoak.rssAfterWaitSeconds,
    "pages without their GRID": pageSoak.pagesUnanswered,
    "a fresh page answered after": pageSoak.answersAFreshPageAfter
  })
}

// 6. The kit.
let kit: KitFigures | undefined
if (!args.has("--no-kit") && !profile) {
  process.stderr.write("bench: the kit: check server and check client...\n")
  kit = await benchKit(nuggets, !quick)
  console.log("\n6. The kit: check server's time to a verdict (ms), and the checker's own CPU; check client on our join")
  console.table(kit.checkServer)
  console.log("   slowest checks against our server (ms):", kit.slowestChecks)
  if (kit.checkClient) console.table({ "check client, our join": kit.checkClient })
}

// 7. Many games in one process.
let host: HostFigures | undefined
if (!args.has("--no-host") && !profile) {
  process.stderr.write("bench: nuggets host, 100 games...\n")
  host = await benchHost({ nuggets, ...(quick ? { warmup: 3, seconds: 8, blocks: 2 } : {}) })
  console.log(`\n7. nuggets host: ${host.host.games} games of 4 players at a person's pace (a key every 250-750 ms), against a lone game of 4` +
    `\n   measured in alternating blocks; latency from a KEY to the DISPLAY that answers it; CPU over every key, timers included`)
  console.table(hostTable(host))
  console.log(
    `   host / lone: latency p99 ${host.ratio.latencyP99}x (target ≤ 2), CPU per key ${host.ratio.cpuPerKey}x (target ≤ 1.1); ` +
      `RSS ${host.host.rssMB} MB (target ≤ ${host.rssTargetMB}); a game adds ${host.rssPerGameMB} MB (target ≤ 1.5)`
  )
}

// 7b. The ceiling of one host.
let ceiling: CeilingFigures | undefined
if (!args.has("--no-ceiling") && !profile) {
  ceiling = await benchCeiling({ nuggets, ...(quick ? { counts: [200, 400], warmup: 3, seconds: 3, blocks: 3 } : {}) })
  console.log(`\n7b. The ceiling of one host: games of 4 players at a person's pace, a host of more games each time until the p99 is over 10 ms` +
    `\n    (the players in 2 processes of their own, their cost beside; ${ceiling.steps[0]?.blocks} blocks of keys measured, each after a second of keys)`)
  console.table(ceilingTable(ceiling))
  console.log(ceiling.ceiling
    ? `    ceiling: ${ceiling.ceiling.games} games with a p99 ≤ 10 ms, in ${ceiling.ceiling.rssMB} MB (${ceiling.ceiling.rssPerGameMB} MB a game; target 1,000 games in 1 GB)`
    : "    ceiling: no count measured held a p99 ≤ 10 ms")
}
// 8 and 9 share a PostgreSQL server of their own; without Debian's package, they say so.
let postgres: Postgres | undefined
let postgresMissing: string | undefined
if ((!args.has("--no-archive") || !args.has("--no-fleet")) && !profile) {
  postgres = await startPostgres().catch((error: unknown) => {
    postgresMissing = error instanceof Error ? error.message : String(error)
    return undefined
  })
  // Stopped however the bench ends.
  process.once("exit", () => postgres?.stop())
}

// 8. The archive.
const archive: Array<ArchiveFigures> = []
if (!args.has("--no-archive") && !profile) {
  const games = quick ? 10_000 : 100_000
  process.stderr.write(`bench: the archive of ${games.toLocaleString("en")} games, on SQLite${postgres ? " and PostgreSQL" : ""}...\n`)
  archive.push(await benchArchive({ games }))
  if (postgres) archive.push(await benchArchive({ games, postgres: postgres.url }))
  console.log(`\n8. The archive of ${games} games: each query 200 times (ms; target: a filtered page under 50 ms), median | p99`)
  console.table(Object.fromEntries(Object.keys(archive[0]!.queries).map((query) =>
    [query, Object.fromEntries(archive.map((each) => [each.database, `${each.queries[query]!.medianMs} | ${each.queries[query]!.p99Ms}`]))])))
  for (const each of archive) {
    const page = filteredPage(each)
    console.log(`   ${each.database}: the slowest filtered page median ${page.medianMs} ms, p99 ${page.p99Ms} ms (CPU ${page.cpuMs} ms); ` +
      `opened in ${each.openMs} ms` + (each.startReconcileMs === undefined ? "" : `, reconciled at start in ${each.startReconcileMs} ms`) +
      `; ${each.databaseMB} MB` + (each.integrity === undefined ? "" : `; integrity ${each.integrity}`))
  }
  if (postgresMissing) console.log(`   PostgreSQL: not measured: ${postgresMissing}`)
}
let heal: Awaited<ReturnType<typeof benchHeal>> | undefined
if (!args.has("--no-archive") && !profile) {
  process.stderr.write("bench: a damaged index made again...\n")
  heal = await benchHeal(quick ? { games: 200 } : {})
  const { kbEach, linesEach } = heal.recordings
  console.log(
    `\n8b. A damaged index of ${heal.games} games (recordings of ${linesEach} lines, ${kbEach} KB each) made again at start: ` +
      `${heal.rebuildMs} ms, CPU ${heal.rebuildCpuMs} ms (a start on the sound index, its check included: ${heal.soundStartMs} ms)`
  )
}

// 9. A fleet.
let fleet: FleetFigures | undefined
if (!args.has("--no-fleet") && !profile) {
  if (postgres) {
    process.stderr.write("bench: a fleet of 3 hosts × 100 games...\n")
    fleet = await benchFleet({ nuggets, postgres, ...(quick ? quickFleet : {}) })
    console.log(`\n9. A fleet: ${fleet.hosts} hosts × ${fleet.gamesPerHost} games on one PostgreSQL, 4 players a game (${fleet.players}), resting, then at a person's pace;` +
      `\n   matchmaking ${fleet.matchesPerSecond} a second and a new game every 0.7 s, each to the hosts in turn, at once; a new game timed until every other host's /events shows it`)
    console.table(fleetTable(fleet))
    for (const line of fleetLines(fleet)) console.log(`   ${line}`)
  } else {
    console.log(`\n9. A fleet: not measured: ${postgresMissing}`)
  }
}
postgres?.stop()
postgres = undefined

for (const map of maps) {
  const hot = figures[map]!.profile
  if (!hot) continue
  console.log(`\nServer profile on ${map}: ${hot.busyMs} ms busy; self time by place, then by function`)
  console.table(hot.places.slice(0, 12))
  console.table(hot.functions.slice(0, 20))
}

const results = {
  when: new Date().toISOString(),
  node: process.version,
  cpus: `${cpus().length} x ${cpus()[0]?.model ?? "?"}`,
  quick,
  server: fromSource ? "from source (tsx)" : "esbuild bundle",
  profiled: profile,
  keys,
  warmup,
  saturationSeconds,
  core,
  recordingCost,
  maps: figures,
  web,
  pageSoak,
  kit,
  host,
  ceiling,
  archive,
  heal,
  fleet
}
mkdirSync(join(root, "bench"), { recursive: true })
writeFileSync(join(root, "bench/results.json"), JSON.stringify(results, null, 2) + "\n")
rmSync(work, { recursive: true, force: true })
console.log("\nwritten to bench/results.json")
