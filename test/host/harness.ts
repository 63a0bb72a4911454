import { Context, Duration, Effect, Exit, Layer, Logger, LogLevel, Option, Scope, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Archive, type ArchiveService } from "../../src/archive/archive.js"
import { hostLayers } from "../../src/cli/hostLayers.js"
import { type FleetTimings, Membership, type MembershipService } from "../../src/fleet/membership.js"
import { Host, type HostService, type HostSettings } from "../../src/host/host.js"
import { Lobby, type LobbyService } from "../../src/host/lobby.js"
import { builtInMaps } from "../../src/host/maps.js"
import { HostWeb } from "../../src/host/web.js"
import { entryText } from "../../src/log.js"
import type { ErrorJson } from "../../src/lobby/refusals.js"
import { nodeUdpLayer } from "../../src/net/nodeUdp.js"

export interface TestHost {
  /** The lobby, `http://127.0.0.1:PORT/`. */
  readonly url: string
  readonly games: HostService
  /** What its lobby shows and offers: its own games, or its fleet's. */
  readonly lobby: LobbyService
  readonly archive: ArchiveService
  /** Its place in its fleet, when it is in one. */
  readonly member: MembershipService | undefined
  readonly dataDir: string
  /** Every line logged so far, `LEVEL message`. */
  readonly log: Array<string>
  /** Stops the host as SIGTERM does (every game told to quit), then removes its data directory unless kept. */
  readonly stop: (options?: { readonly keepData?: boolean }) => Promise<void>
}


/**
 * `nuggets host` in this process, composed of the same Layers as the command, on loopback:
 * the lobby on a free port, each game on a free UDP port, its data in a folder of its own.
 * Host end quickly (last words 20 ms apart, no lingering) and take keys as fast as sent.
 */
export const startHost = async (
  settings: Partial<HostSettings> & { readonly dataDir?: string; readonly fleet?: { readonly url: URL; readonly name: string; readonly timings?: FleetTimings } } = {}
): Promise<TestHost> => {
  const { dataDir = mkdtempSync(join(tmpdir(), "nuggets-host-")), fleet, ...chosen } = settings
  const log: Array<string> = []
  const logger = Logger.make((entry) => void log.push(`${entry.logLevel.label} ${entryText(entry)}`))
  const hostSettings: HostSettings = {
    maps: builtInMaps(),
    udpHost: "127.0.0.1",
    ports: undefined,
    open: 0,
    maxGames: 10,
    idleTimeout: Duration.minutes(10),
    variant: "classic",
    dialect: "2019",
    joinAddress: "127.0.0.1",
    linger: 0,
    startRate: { perSecond: 100, burst: 100 },
    gameOptions: { lastWordsSpacing: "20 millis", keysPerSecond: Infinity },
    ...chosen
  }
  // As the command composes them, alone (SQLite in the data directory) or in a fleet.
  const layers = hostLayers({ host: "127.0.0.1", port: 0 }, hostSettings, fleet === undefined ? { _tag: "Alone", dataDir } : {
    _tag: "Fleet",
    url: fleet.url,
    machine: fleet.name,
    card: { lobbyUrl: "", joinAddress: hostSettings.joinAddress, ports: undefined, maxGames: hostSettings.maxGames },
    ...(fleet.timings === undefined ? {} : { timings: fleet.timings })
  }).pipe(Layer.provide(nodeUdpLayer))
  const scope = Effect.runSync(Scope.make())
  const logging = Logger.replace(Logger.defaultLogger, logger)
  const context = await Effect.runPromise(
    Layer.buildWithScope(layers, scope).pipe(Effect.provide(logging), Logger.withMinimumLogLevel(LogLevel.Debug))
  )
  const games = Context.get(context, Host)
  const web = Context.get(context, HostWeb)
  const member = Context.getOption(context, Membership)
  if (Option.isSome(member)) await Effect.runPromise(member.value.announce(web.url))
  return {
    url: web.url,
    games,
    lobby: Context.get(context, Lobby),
    archive: Context.get(context, Archive),
    member: Option.getOrUndefined(member),
    dataDir,
    log,
    stop: async (options = {}) => {
      await Effect.runPromise(games.stopAll.pipe(Effect.zipRight(Scope.close(scope, Exit.void))))
      if (!options.keepData) rmSync(dataDir, { recursive: true, force: true })
    }
  }
}

/**
 * Awaits, on the host's own word that what the lobby shows changed, until `done` holds:
 * no polling, a deadline.
 */
export const untilShown = (games: HostService, done: () => boolean, timeoutMs = 5000) =>
  Effect.runPromise(
    games.changes.changes.pipe(
      Stream.filter(() => done()),
      Stream.take(1),
      Stream.runDrain,
      Effect.timeoutFail({ duration: timeoutMs, onTimeout: () => new Error("the host did not get there") })
    )
  )

/** A request to the lobby: the status, and the body read as JSON (or the text, when it is not). */
export const call = async (url: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> => {
  const response = await fetch(new URL(path, url), init)
  const body = await response.text()
  let parsed: unknown = body
  try {
    parsed = JSON.parse(body)
  } catch {
    // A page, or a line of text.
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/** `POST /api/games` with `body` (JSON unless a string is given). */
export const postGame = (url: string, body: unknown = {}) =>
  call(url, "/api/games", { method: "POST", headers: { "content-type": "application/json" }, body: typeof body === "string" ? body : JSON.stringify(body) })

export const errorOf = (body: unknown): string => (body as ErrorJson).error

/** The lobby's feed, read until an `archive` event says at least `count` games were archived. */
export const archivedAtLeast = async (url: string, count: number) => {
  const events = await fetch(new URL("/events", url))
  const reader = events.body!.getReader()
  let text = ""
  try {
    for (;;) {
      const archived = [...text.matchAll(/event: archive\ndata: \{"archived":(\d+)\}/g)].map((match) => Number(match[1]))
      if (archived.some((each) => each >= count)) return
      const { done, value } = await reader.read()
      if (done) throw new Error("the lobby's feed ended")
      text += new TextDecoder().decode(value)
    }
  } finally {
    await reader.cancel()
  }
}
