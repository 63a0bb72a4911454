import type { Duration, Schedule } from "effect"
import type { Rules, Variant } from "../core/rules.js"
import type { Dialect } from "../protocol/dialect.js"
import type { LiveGame, ServedGame } from "../server/liveGame.js"
import type { GameWeb, GameWebOptions } from "../web/gameWeb.js"
import type { HostMap } from "./maps.js"
import type { PortRange } from "./ports.js"

/** The host's nouns: how it runs its games, what a game is played on, and a game it runs. */

/** How a host runs its games (the command line's choices). */
export interface HostSettings {
  readonly maps: ReadonlyArray<HostMap>
  /** The address the games' UDP sockets listen on (`--host`). */
  readonly udpHost: string
  readonly ports: PortRange | undefined
  /** Games with free places kept open (`--open`). */
  readonly open: number
  readonly maxGames: number
  readonly idleTimeout: Duration.Duration
  /** For games opened by the host, and requests that do not say. */
  readonly variant: Variant
  readonly dialect: Dialect
  /** What players type to reach the games: `nuggets join ADDRESS PORT NAME`. */
  readonly joinAddress: string
  /** New games a second that requests may start, and how many at once: a flood of requests starts no more. */
  readonly startRate?: { readonly perSecond: number; readonly burst: number }
  /** How long a game stays after its end, answering latecomers with GAMEOVER. */
  readonly linger?: Duration.DurationInput
  /** What every game is given besides (tests: quick last words, keys as fast as sent). */
  readonly gameOptions?: Partial<Omit<ServedGame, "map" | "seed" | "rules" | "idleTimeout">>
  /** The rules of a game; the dialect's preset with its variant when not given (tests give a rule that throws). */
  readonly rulesOf?: (choice: GameChoice) => Rules
  readonly web?: GameWebOptions
  /**
   * When the host tries again what the system refused it (a full disk): opening the games
   * `--open` keeps, and the archive's work for games gone. Every few seconds, backing off,
   * when not given (a test holds them until it has freed space).
   */
  readonly retry?: Schedule.Schedule<unknown>
}

/** What a game is played on and by. */
export interface GameChoice {
  readonly map: HostMap
  readonly seed: number
  readonly variant: Variant
  readonly dialect: Dialect
}

/** What a request for a new game may say; the rest is chosen for it. */
export interface GameWanted {
  readonly map?: string | undefined
  readonly seed?: number | undefined
  readonly variant?: Variant | undefined
  readonly dialect?: Dialect | undefined
}

export interface RunningGame {
  readonly id: string
  readonly choice: GameChoice
  readonly port: number
  readonly startedMs: number
  readonly live: LiveGame
  readonly web: GameWeb
}

/** Whether a game still lets a player in: not over, a letter left. */
export const hasFreePlace = (game: LiveGame): boolean => {
  const state = game.state()
  return !state.over && state.players.length < state.rules.maxPlayers
}
