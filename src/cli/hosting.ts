import { type Duration, Layer, Option } from "effect"
import type { GameMap } from "../core/map.js"
import type { Variant } from "../core/rules.js"
import { type Udp, type UdpError, udpLayer, type UdpOptions, type UdpSocket } from "../net/udp.js"
import type { Dialect } from "../protocol/dialect.js"
import type { RecordingError } from "../recording/lines.js"
import { openLineFile } from "../recording/writer.js"
import { gameStack } from "../server/stack.js"
import type { LiveGame, ServedGame } from "../server/liveGame.js"
import type { WebError } from "../web/error.js"
import type { WebOptions } from "../web/gameWeb.js"
import { webLayer } from "../web/live.js"
import { checkOutputs } from "./files.js"
import { rulesFor } from "../protocol/dialect.js"

/** A game this program hosts: the game, where it listens, and what goes with it. */
export interface Hosting {
  readonly game: ServedGame & { readonly dialect: Dialect }
  readonly udp: UdpOptions
  /** `--record FILE`: the game recorded as it is played. */
  readonly record?: { readonly path: string; readonly overwrite: boolean }
  /** `--web`: the game on the web (`LiveWeb`). */
  readonly web?: WebOptions
}

/** The Layers of a hosted game (see `gameStack`): its socket, the game, its recording, its page. */
export const hostingLayer = (hosting: Hosting): Layer.Layer<LiveGame | UdpSocket, UdpError | RecordingError | WebError, Udp> =>
  gameStack({
    game: hosting.game,
    socket: udpLayer(hosting.udp),
    ...(hosting.record === undefined ? {} : { record: { to: openLineFile(hosting.record.path, { overwrite: hosting.record.overwrite }) } }),
    ...(hosting.web === undefined ? {} : { web: webLayer(hosting.web) })
  })

/** What a command that hosts a game was given (see `hostingOptions`), as far as hosting goes. */
export interface HostingChoices {
  readonly port: number
  readonly host: string
  readonly variant: Variant
  readonly record: Option.Option<string>
  readonly overwrite: boolean
  readonly idleTimeout: Duration.Duration
  readonly log: Option.Option<string>
}

/** Before anything starts: the files a hosting command writes (the recording, the log) against the map it reads. */
export const checkHostingFiles = (choices: HostingChoices, mapFile: Option.Option<string>) =>
  checkOutputs(
    [
      ...Option.toArray(choices.record).map((path) => ({ path, flag: "--record" })),
      ...Option.toArray(choices.log).map((path) => ({ path, flag: "--log", append: true }))
    ],
    Option.toArray(mapFile).map((path) => ({ path, what: "the map" })),
    choices.overwrite
  )

/** The hosting that a command's choices ask for, for a game on `map` from `seed`. */
export const hostingOf = (
  choices: HostingChoices,
  game: { readonly map: GameMap; readonly seed: number; readonly dialect: Dialect },
  web: Option.Option<WebOptions>
): Hosting => ({
  game: { ...game, rules: rulesFor(game.dialect, choices.variant), idleTimeout: choices.idleTimeout },
  udp: { port: choices.port, host: choices.host },
  ...Option.match(choices.record, { onNone: () => ({}), onSome: (path) => ({ record: { path, overwrite: choices.overwrite } }) }),
  ...Option.match(web, { onNone: () => ({}), onSome: (options) => ({ web: options }) })
})
