import type { GameMap } from "../../core/map.js"
import type { UdpError } from "../../net/udp.js"
import type { Standing } from "../../protocol/summary.js"
import type { Check, CheckContext, Recorder } from "../conformance/check.js"
import type { Client } from "./client.js"
import type { Clients } from "./clients.js"
import type { Launched } from "./launch.js"
import type { SightJudge } from "./sight-judge.js"
import type { Traffic } from "./traffic.js"

/**
 * The checks of `check server`, by name, with what each gives the checks that build on it.
 * The keys are the checks' names: this is where they are declared.
 */
export interface ServerGives {
  /** The spectator it let in (its first view is the piles as dropped). */
  readonly "join-spectator": Client
  /** The player it let in. */
  readonly "join-player": Client
  readonly "unknown-keys": void
  readonly "bad-messages": void
  readonly "move-keys": void
  readonly "gold-to-all": void
  readonly swap: void
  readonly "no-stale-view": void
  readonly "spectator-replacement": void
  readonly quit: void
  readonly "player-limit": void
  /** The game-over summary, line by line, if one came, and the clients of the game it ended. */
  readonly "game-over": { readonly standings: ReadonlyArray<Standing>; readonly clients: Clients } | undefined
  readonly "server-exit": void
  readonly names: void
  readonly "new-player-drop": void
  readonly "occupants-drawn": void
  readonly "display-framing": void
  readonly "message-form": void
  readonly "gold-totals": void
  readonly "pile-count": void
  readonly "spectator-view": void
  readonly visibility: void
}

export type ServerCheckName = keyof ServerGives

/** The game the checks play now: one server, as the checker found it or started it afresh. */
export interface Game {
  /** 1 for the first server, more after each start afresh. */
  readonly number: number
  /** The process, when the checker started the server itself (`-- COMMAND`). */
  readonly launched: Launched | undefined
}

/** What every check of `check server` works with: the game's clients and the run's observer of all traffic. */
export interface ServerTools {
  readonly clients: Clients
  /** The clients of every game so far, this one last: what the checks that judge all traffic look over. */
  readonly games: ReadonlyArray<Clients>
  readonly traffic: Traffic
  readonly game: Game
  /** The map the server was started with (--map), if given. */
  readonly map: GameMap | undefined
  /** Judges the views, with --map. */
  readonly judge: SightJudge | undefined
  /** How long to wait for each answer. */
  readonly answerMs: number
  /**
   * Asks for the check under way to be played again from its own start, on a server started
   * afresh, because `why` (what earlier checks left behind kept it from being judged here):
   * true when the checker will (it starts the server itself, and has not yet for this check);
   * the check then ends, and what it found so far is dropped.
   */
  readonly startAfresh: (why: string) => boolean
}

export type ServerCheck<Name extends ServerCheckName, Needs extends ServerCheckName = never, Prepared = never> =
  & Check<ServerGives, ServerTools, Name, Needs, UdpError, Prepared>
  & {
    /** Judged only with --map. */
    readonly needsMap?: true
    /** It judges what was gathered before: it is run even when the server is gone. */
    readonly judgesGathered?: true
    /** Played on a server of its own, when the checker starts the server (`-- COMMAND`). */
    readonly freshGame?: true
    /** Its deadline, when it plays more than a few keys: what the game it plays may take. */
    readonly deadlineMs?: (answerMs: number) => number
  }

/** What a check's `run` is given. */
export type ServerContext<Needs extends ServerCheckName = never> = ServerTools & CheckContext<ServerGives, Needs>

/** What helpers shared by several checks need: the tools and a way to record failures. */
export type ServerRecorder = ServerTools & Recorder
