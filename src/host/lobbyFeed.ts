import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, type Scope } from "effect"
import { variants } from "../core/rules.js"
import { dialects } from "../protocol/dialect.js"
import { type ArchiveChanged, type GamesJson, LobbyEvent, type LobbyHello } from "../web/lobbyApi.js"
import { eventStream, heartbeat, heartbeatInterval, sseEvent } from "../web/sse.js"
import { tooManyWatchers, WatcherFeed } from "../web/watch.js"
import type { HostService } from "./host.js"
import { liveGameJson } from "./json.js"

/** Lobby pages open at once; more are turned away with 503. */
const maxLobbyWatchers = 2000
/** At most this often: a busy host (games joined and gold found every moment) costs the lobby a few writes a second. */
const pace = Duration.millis(250)
/** Even when nothing was said, this often: what a game's watchers number changes with no word from the game. */
const refresh = Duration.seconds(2)

export interface LobbyFeed {
  /** `/events`: the lobby's Server-Sent Events (`hello`, then `games` and `archive` whenever they change). */
  readonly route: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>
  /** Ends every page's feed, as a stream ends. */
  readonly endAll: Effect.Effect<void>
}

const concat = (parts: ReadonlyArray<Uint8Array>): Uint8Array => {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0))
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.length
  }
  return all
}

const sameBytes = (a: Uint8Array | undefined, b: Uint8Array) => a !== undefined && a.length === b.length && a.every((byte, i) => byte === b[i])

/**
 * The lobby's pages, each a feed (`WatcherFeed`: a slow page skips to the newest) held in
 * its request's scope. One fiber tells them all, the same bytes for each, when the games
 * or the archive changed (at most every `pace`), and looks again every `refresh`; nothing
 * is made while no page watches.
 */
export const lobbyFeed = (games: HostService): Effect.Effect<LobbyFeed, never, Scope.Scope> =>
  Effect.gen(function*() {
    const feeds = new Set<WatcherFeed>()
    const { settings } = games
    const hello = sseEvent(LobbyEvent.hello, {
      maps: settings.maps.map((each) => each.name),
      variants,
      dialects,
      variant: settings.variant,
      dialect: settings.dialect,
      maxGames: settings.maxGames
    } satisfies LobbyHello)
    const gamesNow = () =>
      sseEvent(LobbyEvent.games, {
        games: games.running().map((game) => liveGameJson(game, settings)),
        maps: settings.maps.map((each) => each.name),
        maxGames: settings.maxGames
      } satisfies GamesJson)
    const archiveNow = () => sseEvent(LobbyEvent.archive, { archived: games.archived() } satisfies ArchiveChanged)

    let lastGames: Uint8Array | undefined
    let lastArchived = games.archived()
    let quietSince = Date.now()
    const tell = Effect.gen(function*() {
      const version = games.version()
      if (feeds.size === 0) {
        lastGames = undefined
        return yield* games.changedSince(version)
      }
      const parts: Array<Uint8Array> = []
      const gamesEvent = gamesNow()
      if (!sameBytes(lastGames, gamesEvent)) parts.push(lastGames = gamesEvent)
      if (games.archived() !== lastArchived) {
        lastArchived = games.archived()
        parts.push(archiveNow())
      }
      const now = Date.now()
      if (parts.length === 0 && now - quietSince >= Duration.toMillis(heartbeatInterval)) parts.push(heartbeat)
      if (parts.length > 0) {
        quietSince = now
        const bytes = concat(parts)
        for (const feed of feeds) feed.offer(bytes)
      }
      yield* Effect.sleep(pace)
      yield* games.changedSince(version).pipe(Effect.timeout(refresh), Effect.ignore)
    })
    yield* Effect.forkScoped(Effect.forever(tell))

    const place = Effect.acquireRelease(
      Effect.sync(() => {
        const feed = new WatcherFeed(concat([hello, gamesNow(), archiveNow()]))
        feeds.add(feed)
        return feed
      }),
      (feed) =>
        Effect.sync(() => {
          feeds.delete(feed)
          feed.destroy()
        })
    )
    const route = Effect.suspend(() => feeds.size >= maxLobbyWatchers ? Effect.succeed(tooManyWatchers) : Effect.map(place, eventStream))
    const endAll = Effect.sync(() => {
      for (const feed of feeds) feed.end()
    })
    return { route, endAll }
  })
