import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, type Effect, type Scope } from "effect"
import type { Listening, ListenOptions } from "./listen.js"
import type { PlayerSocketOptions } from "./playerSockets.js"
import type { WatchOptions } from "./watch.js"

/**
 * The game on the web as services: what they offer and their tags, with no code of the web
 * side itself (`live.ts` is that), so that a program without `--web` loads none of it.
 */

export interface GameWebOptions {
  readonly watch?: Partial<WatchOptions>
  readonly play?: Partial<PlayerSocketOptions>
}

export interface WebOptions extends ListenOptions, GameWebOptions {}

/** A route of one game: answers a request, holding what it takes for as long as the request lasts. */
export type GameRoute = Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest | Scope.Scope>

/** One live game on the web, wherever its routes are served: `watch` the watchers' feed, `play` the players' WebSocket. */
export interface GameWeb {
  readonly watch: GameRoute
  readonly play: GameRoute
  /** Pages watching now. */
  readonly watchers: () => number
  /** Succeeds once the number of watchers satisfies `wanted`. */
  readonly watchersWhere: (wanted: (count: number) => boolean) => Effect.Effect<void>
  /** Ends every watcher's feed after the game as it stands (see `Watching.endAll`); the scope's end does it too. */
  readonly endFeeds: Effect.Effect<void>
}

export interface LiveWeb extends Listening, Pick<GameWeb, "watchers" | "watchersWhere"> {}

/** The game on the web, when this program serves it (`--web`). */
export const LiveWeb = Context.GenericTag<LiveWeb>("nuggets/LiveWeb")

/** The routes of a game served by another program's web server (`nuggets host`): see `gameWeb` in live.ts. */
export const GameWeb = Context.GenericTag<GameWeb>("nuggets/GameWeb")
