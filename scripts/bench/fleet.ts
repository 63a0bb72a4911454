/**
 * A fleet on this machine: `hosts` processes of `nuggets host --database`, on a database of
 * their own on a PostgreSQL server of the bench's (test/postgres.ts), each keeping `games`
 * games open with 4 players in each at a person's pace (in processes of their own, see
 * `paced.ts`). Measured while the players rest, then while they play:
 *   - matchmaking: `POST /api/match`, to each host in turn, `matchRate` a second on a fixed
 *     schedule (a slow answer does not put off the next ask): its answer's time;
 *   - the lobby's staleness: a game started on one host (`POST /api/games`), until each
 *     other host's `/events` shows it, timed from the ask (the ask's own answer beside);
 *   - the players' latency (KEY to DISPLAY), the hosts' memory and CPU, and PostgreSQL's
 *     CPU and transactions.
 * `node --import tsx scripts/bench/fleet.ts [--quick]` prints the figures; asserts nothing.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freshDatabase, startPostgres } from "../../test/postgres.js"
import { databaseStats, LobbyWatch, postgresCpuMicros } from "./fleetProbes.js"
import { type HostProcess, startHost } from "./host.js"
import { PacedLoad } from "./paced.js"
import { cpuMicros, rssMB } from "./process.js"
import { bundleNuggets, type Nuggets, serverSeed } from "./server.js"
import { round, summarize } from "./stats.js"

/** A POST to `path` on `lobby`: how long it took (ms) and its JSON answer, or why it was refused (an error status, or no answer). */
const post = async (lobby: URL, path: string, body?: unknown): Promise<{ readonly sentAt: number; readonly ms: number } & ({ readonly answer: unknown } | { readonly refused: string })> => {
  const sentAt = performance.now()
  try {
    const response = await fetch(new URL(path, lobby), {
      method: "POST",
      ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
    })
    const answer: unknown = await response.json()
    const ms = performance.now() - sentAt
    return response.ok ? { sentAt, ms, answer } : { sentAt, ms, refused: `${response.status} ${(answer as { error?: string }).error ?? ""}` }
  } catch (error) {
    return { sentAt, ms: performance.now() - sentAt, refused: error instanceof Error ? error.message : String(error) }
  }
}

/** `count` asks of `ask`, one every `1 / perSecond` s whether or not the last was answered; each one's result, or its failure. */
const openLoop = async <A>(count: number, perSecond: number, ask: (i: number) => Promise<A>): Promise<Array<{ value: A } | { error: unknown }>> => {
  const asked: Array<Promise<{ value: A } | { error: unknown }>> = []
  const started = performance.now()
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / perSecond
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())))
    // Settled at once: an ask that fails while later ones are still being made is not an unhandled rejection.
    asked.push(ask(i).then((value) => ({ value }), (error: unknown) => ({ error })))
  }
  return Promise.all(asked)
}

/** Times (ms) of the asks answered, and how many were not, with their reasons (each once). */
const msFigures = (samples: ReadonlyArray<number>, failures: ReadonlyArray<string> = []) => {
  const { median, p99, max } = summarize(samples)
  return { count: samples.length, medianMs: round(median, 1), p99Ms: round(p99, 1), maxMs: round(max, 1), failed: failures.length, reasons: [...new Set(failures)] }
}

/** What a phase measured: the asks' times, and what the fleet cost meanwhile. */
export interface PhaseFigures {
  readonly match: ReturnType<typeof msFigures>
  readonly newGameAnswer: ReturnType<typeof msFigures>
  /** From the ask for a game on one host to its showing on another's `/events`, over every other host. */
  readonly lobbyStaleness: ReturnType<typeof msFigures>
  /** The players' keys (none while they rest), and their latency. */
  readonly keysPerSecond: number
  readonly latencyMedianMicros: number | undefined
  readonly latencyP99Micros: number | undefined
  /** How late the players' event loops ran, µs: the p99 and the most (a late loop times its keys late). */
  readonly playersLoopDelayMicros: { readonly p99: number; readonly most: number } | undefined
  /** PostgreSQL's work over the phase, a second: transactions, rows written and rows changed (pg_stat_database). */
  readonly database: { readonly commits: number; readonly inserted: number; readonly updated: number }
  /** Shares of one core over the phase: the hosts together, PostgreSQL, the players' processes. */
  readonly cpuShare: { readonly hosts: number; readonly postgres: number; readonly players: number | undefined }
  readonly loadAverage: number
}

export interface FleetFigures {
  readonly hosts: number
  readonly gamesPerHost: number
  readonly players: number
  readonly matchesPerSecond: number
  /** The players joined, pressing no key; then at a person's pace. */
  readonly resting: PhaseFigures
  readonly playing: PhaseFigures
  readonly hostRssMB: ReadonlyArray<number>
}

export interface FleetOptions {
  readonly nuggets?: Nuggets
  /** A PostgreSQL server to make the fleet's database on: `postgres://postgres@HOST:PORT/postgres`, and its cluster's folder. */
  readonly postgres?: { readonly url: string; readonly dir: string }
  readonly hosts?: number
  readonly games?: number
  /** Asks of each phase. */
  readonly matches?: number
  readonly matchRate?: number
  readonly starts?: number
  readonly warmup?: number
}

/** What `--quick` asks (`npm run bench -- --quick` too). */
export const quickFleet = { matches: 100, starts: 12, warmup: 3 } as const

/** A new game every `startEvery` ms, each host in turn: within any host's pace of new games (2 a second from one address). */
const startEvery = 700
const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0])

/** The fleet, measured: see the file's comment. */
export const benchFleet = async (options: FleetOptions = {}): Promise<FleetFigures> => {
  const { hosts: hostCount = 3, games = 100, matches = 600, matchRate = 20, starts = 60, warmup = 5 } = options
  const dir = mkdtempSync(join(tmpdir(), "nuggets-bench-fleet-"))
  const ownServer = options.postgres === undefined ? await startPostgres() : undefined
  const server = options.postgres ?? ownServer!
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined
  const hosts: Array<HostProcess> = []
  const watches: Array<LobbyWatch> = []
  let load: PacedLoad | undefined
  let stats: Awaited<ReturnType<typeof databaseStats>> | undefined
  try {
    database = await freshDatabase(server.url)
    const nuggets = options.nuggets ?? (await bundleNuggets(dir))
    // One at a time: the first makes the tables. Room for the games both phases start.
    for (let i = 0; i < hostCount; i++) {
      hosts.push(await startHost(nuggets, games, dir, { database: database.url, maxGames: games + Math.ceil((2 * starts) / hostCount) + 10 }))
    }
    load = await PacedLoad.join(hosts.flatMap((host) => host.ports), 4, serverSeed, 2)
    watches.push(...(await Promise.all(hosts.map((host) => LobbyWatch.open(host.lobby)))))

    const counts = stats = await databaseStats(server.url, database.url)
    const cpuOf = () => ({ hosts: hosts.reduce((sum, host) => sum + cpuMicros(host.pid).micros, 0), postgres: postgresCpuMicros(server.dir) })
    /** Matchmaking and new games at once, each on its own schedule. */
    const asking = async () => {
      const [matched, started] = await Promise.all([
        openLoop(matches, matchRate, (i) => post(hosts[i % hostCount]!.lobby, "/api/match")),
        openLoop(starts, 1000 / startEvery, async (i) => {
          const on = i % hostCount
          const asked = await post(hosts[on]!.lobby, "/api/games", {})
          if ("refused" in asked) return { asked, shown: [] }
          const { id } = asked.answer as { readonly id: string }
          const others = watches.filter((_, at) => at !== on)
          return { asked, shown: await Promise.all(others.map((watch) => watch.shown(id).then((at) => at - asked.sentAt, (error: unknown) => String(error)))) }
        })
      ])
      const matchAsks = matched.flatMap((each) => ("value" in each ? [each.value] : []))
      const startAsks = started.flatMap((each) => ("value" in each ? [each.value.asked] : []))
      const shown = started.flatMap((each) => ("value" in each ? each.value.shown : []))
      const times = (asks: ReadonlyArray<Awaited<ReturnType<typeof post>>>) => asks.flatMap((each) => ("refused" in each ? [] : [each.ms]))
      const refusals = (asks: ReadonlyArray<Awaited<ReturnType<typeof post>>>) => asks.flatMap((each) => ("refused" in each ? [each.refused] : []))
      return {
        match: msFigures(times(matchAsks), refusals(matchAsks)),
        newGameAnswer: msFigures(times(startAsks), refusals(startAsks)),
        lobbyStaleness: msFigures(shown.filter((each) => typeof each === "number"), shown.filter((each) => typeof each === "string"))
      }
    }
    /** The asks, the CPU used meanwhile, what the database did, and the seconds they took. */
    const timed = async () => {
      const worked = await counts.read()
      const [before, started] = [cpuOf(), performance.now()]
      const asked = await asking()
      const [after, seconds] = [cpuOf(), (performance.now() - started) / 1000]
      const work = await counts.read()
      const share = (micros: number) => round(micros / (seconds * 1e6), 3)
      const perSecond = (key: keyof typeof work) => round((work[key] - worked[key]) / seconds)
      return {
        asked,
        hosts: share(after.hosts - before.hosts),
        postgres: share(after.postgres - before.postgres),
        database: { commits: perSecond("commits"), inserted: perSecond("inserted"), updated: perSecond("updated") }
      }
    }

    const rest = await timed()
    const resting: PhaseFigures = {
      ...rest.asked,
      keysPerSecond: 0,
      latencyMedianMicros: undefined,
      latencyP99Micros: undefined,
      playersLoopDelayMicros: undefined,
      database: rest.database,
      cpuShare: { hosts: rest.hosts, postgres: rest.postgres, players: undefined },
      loadAverage: loadAverage()
    }
    await load.block(warmup)
    // The players' block lasts as long as the asks should take, and a second more.
    let play: ReturnType<typeof timed> | undefined
    const block = await load.block(Math.max(matches / matchRate, (starts * startEvery) / 1000) + 1, () => {
      play = timed()
      // Awaited below, once the block is over: a failure meanwhile is not an unhandled one.
      play.catch(() => undefined)
      return () => {}
    })
    const played = await play!
    const latency = summarize(block.samples)
    return {
      hosts: hostCount,
      gamesPerHost: games,
      players: 4 * games * hostCount,
      matchesPerSecond: matchRate,
      resting,
      playing: {
        ...played.asked,
        keysPerSecond: round(block.keys / block.seconds),
        latencyMedianMicros: round(latency.median),
        latencyP99Micros: round(latency.p99),
        playersLoopDelayMicros: { p99: block.loadLoopDelayP99Micros, most: block.loadLoopDelayMaxMicros },
        database: played.database,
        cpuShare: { hosts: played.hosts, postgres: played.postgres, players: block.loadCpuShare },
        loadAverage: loadAverage()
      },
      hostRssMB: hosts.map((host) => round(rssMB(host.pid)))
    }
  } finally {
    await stats?.close()
    for (const watch of watches) watch.close()
    await load?.close().catch(() => undefined)
    await Promise.all(hosts.map((host) => host.stop().catch(() => undefined)))
    await database?.drop().catch(() => undefined)
    ownServer?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The figures as a table: a column a phase. */
export const fleetTable = (figures: FleetFigures) => {
  const row = (pick: (phase: PhaseFigures) => unknown, target = "") =>
    ({ "players resting": pick(figures.resting), "players at a person's pace": pick(figures.playing), target })
  const ms = (each: ReturnType<typeof msFigures>) => `${each.medianMs} | ${each.p99Ms} | ${each.maxMs}`
  return {
    "matchmaking, POST /api/match: ms, median | p99 | most": row((phase) => ms(phase.match)),
    "a new game, POST /api/games: ms, median | p99 | most": row((phase) => ms(phase.newGameAnswer)),
    "lobby staleness, from the ask to another host's /events: ms, median | p99 | most": row((phase) => ms(phase.lobbyStaleness), "≤ 1,000"),
    "answered: matches | new games | games seen on other hosts": row((phase) => `${phase.match.count} | ${phase.newGameAnswer.count} | ${phase.lobbyStaleness.count}`),
    "not answered (refused, or not seen in 15 s)": row((phase) => `${phase.match.failed} | ${phase.newGameAnswer.failed} | ${phase.lobbyStaleness.failed}`, "0 | 0 | 0"),
    "players' keys per second": row((phase) => phase.keysPerSecond),
    "players' latency µs, median | p99": row((phase) => (phase.latencyP99Micros === undefined ? "-" : `${phase.latencyMedianMicros} | ${phase.latencyP99Micros}`)),
    "players' event loop delay µs, p99 | most": row((phase) => (phase.playersLoopDelayMicros === undefined ? "-" : `${phase.playersLoopDelayMicros.p99} | ${phase.playersLoopDelayMicros.most}`)),
    "PostgreSQL a second: transactions | rows inserted | rows updated": row((phase) => `${phase.database.commits} | ${phase.database.inserted} | ${phase.database.updated}`),
    "CPU, share of a core: hosts | PostgreSQL | players": row((phase) => `${phase.cpuShare.hosts} | ${phase.cpuShare.postgres} | ${phase.cpuShare.players ?? "-"}`),
    "load average (1 min)": row((phase) => phase.loadAverage)
  }
}

/** The lines beside the table: the hosts' memory, and why asks were not answered. */
export const fleetLines = (figures: FleetFigures): ReadonlyArray<string> => [
  `hosts' RSS MB at the end: ${figures.hostRssMB.join(", ")}`,
  ...(["resting", "playing"] as const).flatMap((phase) => {
    const { lobbyStaleness, match, newGameAnswer } = figures[phase]
    const reasons = [...new Set([...match.reasons, ...newGameAnswer.reasons, ...lobbyStaleness.reasons])]
    return reasons.length === 0 ? [] : [`not answered, players ${phase}: ${reasons.join("; ")}`]
  })
]

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const quick = process.argv.includes("--quick")
  const figures = await benchFleet(quick ? quickFleet : {})
  console.log(`a fleet: ${figures.hosts} hosts × ${figures.gamesPerHost} games on one PostgreSQL, 4 players a game at a person's pace`)
  console.table(fleetTable(figures))
  for (const line of fleetLines(figures)) console.log(line)
}
