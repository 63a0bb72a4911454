import { Context, Effect, Layer, Option } from "effect"
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client"
import { gameEnds, type GameEnd } from "../protocol/endings.js"
import { Counts, ProcessCounts, refusedReasons } from "../server/counts.js"
import type { RunningGame } from "./model.js"

/**
 * What a host tells Prometheus (`/metrics`, its text format), through prom-client, the
 * usual Node library: it writes the format and the process's own series (memory, CPU)
 * as Prometheus names them, which Effect's `Metric` has no exporter for in this line. Few
 * labels, none per game or per player: the series stay as many however many games run.
 * What is counted on the games' hot path is plain numbers (`Counts`), read at each scrape.
 */
export interface HostMetricsService {
  /** A game ended, as its word says, after this long. */
  readonly gameEnded: (end: GameEnd, seconds: number) => void
  /** The archive could not take a game (a full disk, a broken index). */
  readonly archiveWriteFailed: () => void
  /** One HTTP request, by its route (a path with `:id`) and its status. */
  readonly httpRequest: (route: string, status: number) => void
  /** The host's games, for the gauges: from its start, once it is made. */
  readonly watch: (host: WatchedHost) => void
  /** The scrape: the text, and its content type. */
  readonly render: Effect.Effect<{ readonly text: string; readonly contentType: string }>
}

/** What the gauges read of the host. */
export interface WatchedHost {
  readonly unarchived: () => ReadonlyArray<RunningGame>
  readonly startingNow: () => number
}

export class HostMetrics extends Context.Tag("nuggets/HostMetrics")<HostMetrics, HostMetricsService>() {}

/** A counter whose value is read at each scrape from a number that only grows. */
const countedFrom = (registry: Registry, name: string, help: string, read: () => number, labels?: Readonly<Record<string, string>>) => {
  let told = 0
  const counter: Counter = new Counter({
    name,
    help,
    labelNames: labels === undefined ? [] : Object.keys(labels),
    registers: [registry],
    collect() {
      const now = read()
      if (now > told) {
        if (labels === undefined) counter.inc(now - told)
        else counter.inc(labels, now - told)
      }
      told = now
    }
  })
  return counter
}

export const makeHostMetrics = (counts: Counts): HostMetricsService => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  // Gauges that prom-client names as counters, against Prometheus' conventions (promtool says so).
  for (const misnamed of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) {
    registry.removeSingleMetric(misnamed)
  }
  let host: WatchedHost | undefined
  const games = () => host?.unarchived() ?? []

  new Gauge({
    name: "nuggets_games",
    help: "Games of this host, by state: starting, playing, or ended (lingering, or on their way to the archive).",
    labelNames: ["state"],
    registers: [registry],
    collect() {
      const all = games()
      const playing = all.filter((game) => game.live.life()._tag === "Playing").length
      this.set({ state: "starting" }, host?.startingNow() ?? 0)
      this.set({ state: "playing" }, playing)
      this.set({ state: "ended" }, all.length - playing)
    }
  })
  new Gauge({
    name: "nuggets_players",
    help: "Players in this host's games, still playing.",
    registers: [registry],
    collect() {
      this.set(games().reduce((sum, game) => sum + game.live.state().players.filter((each) => each.active).length, 0))
    }
  })
  new Gauge({
    name: "nuggets_spectators",
    help: "Spectators of this host's games (the protocol's one each).",
    registers: [registry],
    collect() {
      this.set(games().filter((game) => game.live.state().spectator !== undefined).length)
    }
  })
  new Gauge({
    name: "nuggets_watchers",
    help: "Pages watching this host's games in a browser.",
    registers: [registry],
    collect() {
      this.set(games().reduce((sum, game) => sum + game.web.watchers(), 0))
    }
  })
  const ended = new Counter({ name: "nuggets_games_ended_total", help: "Games ended, by how: over, stopped, failed.", labelNames: ["end"], registers: [registry] })
  for (const end of gameEnds) ended.inc({ end }, 0)
  const length = new Histogram({
    name: "nuggets_game_duration_seconds",
    help: "How long games lasted, from their start to their end.",
    buckets: [30, 60, 120, 300, 600, 1200, 1800, 3600, 7200],
    registers: [registry]
  })
  countedFrom(registry, "nuggets_keys_total", "Keys the games took.", () => counts.keys)
  countedFrom(registry, "nuggets_datagrams_received_total", "UDP datagrams the games received.", () => counts.datagramsReceived)
  countedFrom(registry, "nuggets_datagrams_sent_total", "UDP datagrams the games sent.", () => counts.datagramsSent)
  const refusedTold = { malformed: 0, refused: 0, limited: 0 }
  new Counter({
    name: "nuggets_datagrams_refused_total",
    help: "Messages the games did not take, by why: malformed, refused (a refusal was sent), limited (over a sender's limit).",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      for (const reason of refusedReasons) {
        this.inc({ reason }, counts.refused[reason] - refusedTold[reason])
        refusedTold[reason] = counts.refused[reason]
      }
    }
  })
  const archiveFailures = new Counter({
    name: "nuggets_archive_write_failures_total",
    help: "Games the archive could not take when they ended (a full disk, a broken index).",
    registers: [registry]
  })
  const requests = new Counter({
    name: "nuggets_http_requests_total",
    help: "HTTP requests, by route and status.",
    labelNames: ["route", "status"],
    registers: [registry]
  })
  return {
    gameEnded: (end, seconds) => {
      ended.inc({ end })
      length.observe(seconds)
    },
    archiveWriteFailed: () => archiveFailures.inc(),
    httpRequest: (route, status) => requests.inc({ route, status: String(status) }),
    watch: (watched) => void (host = watched),
    render: Effect.promise(async () => ({ text: await registry.metrics(), contentType: registry.contentType }))
  }
}

export const hostMetricsLayer: Layer.Layer<HostMetrics> = Layer.effect(
  HostMetrics,
  Effect.map(Effect.serviceOption(ProcessCounts), (counts) => makeHostMetrics(Option.getOrElse(counts, () => new Counts())))
)
