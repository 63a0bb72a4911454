import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, type Scope, Stream, SubscriptionRef } from "effect"
import { variants } from "../core/rules.js"
import { dialects } from "../protocol/dialect.js"
import { type ArchiveChanged, LobbyEvent, type LobbyHello } from "../lobby/feed.js"
import { makeAudience } from "../web/audience.js"
import { sseEvent } from "../web/sse.js"
import type { HostService } from "./host.js"
import { gamesJson } from "./json.js"
import type { LobbyService } from "./lobby.js"

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

/**
 * The lobby's pages, an audience (see `audience.ts`: a slow page skips to the newest). One
 * fiber tells them all, the same bytes for each, when the games or the archive changed (at
 * most every `pace`), and looks again every `refresh`; nothing is made while no page watches.
 */
export const lobbyFeed = (host: HostService, lobby: LobbyService, refusing: () => string | undefined): Effect.Effect<LobbyFeed, never, Scope.Scope> =>
  Effect.gen(function*() {
    const audience = yield* makeAudience({ max: maxLobbyWatchers })
    const { settings } = host
    const hello = sseEvent(LobbyEvent.hello, {
      maps: settings.maps.map((each) => each.name),
      variants,
      dialects,
      variant: settings.variant,
      dialect: settings.dialect,
      maxGames: settings.maxGames
    } satisfies LobbyHello)
    const gamesNow = () => sseEvent(LobbyEvent.games, gamesJson(settings, lobby.games(), refusing()))
    const archiveNow = () => sseEvent(LobbyEvent.archive, { archived: lobby.archived() } satisfies ArchiveChanged)

    /** Succeeds once what the lobby shows has changed since `version`. */
    const changedSince = (version: number) =>
      lobby.changes.changes.pipe(Stream.filter((now) => now > version), Stream.take(1), Stream.runDrain)

    let lastGames: Uint8Array | undefined
    let lastArchived = lobby.archived()
    const tell = Effect.gen(function*() {
      const version = yield* SubscriptionRef.get(lobby.changes)
      if (audience.size() === 0) {
        lastGames = undefined
        return yield* changedSince(version)
      }
      const parts: Array<Uint8Array> = []
      const gamesEvent = gamesNow()
      if (!sameBytes(lastGames, gamesEvent)) parts.push(lastGames = gamesEvent)
      if (lobby.archived() !== lastArchived) {
        lastArchived = lobby.archived()
        parts.push(archiveNow())
      }
      if (parts.length > 0) yield* audience.tell(concat(parts))
      yield* Effect.sleep(pace)
      yield* changedSince(version).pipe(Effect.timeout(refresh), Effect.ignore)
    })
    yield* Effect.forkScoped(Effect.forever(tell))

    return {
      route: audience.join(Effect.sync(() => concat([hello, gamesNow(), archiveNow()]))),
      endAll: audience.endAll()
    }
  })

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
