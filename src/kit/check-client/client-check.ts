import type { Udp, UdpError } from "../../net/udp.js"
import type { Check, CheckContext, Recorder } from "../conformance/check.js"
import type { ClientCheckOptions, Stage } from "./stage.js"
import type { TtyError } from "./tmux-control.js"

/**
 * The checks of `check client`, by name, with what each gives the checks that build on it.
 * The keys are the checks' names: this is where they are declared.
 */
export interface ClientGives {
  /** The client run with a name, let in as player A: the checks that build on it go on with it. */
  readonly "join-player": Stage
  /** The client run with no name, let in as the spectator. */
  readonly "join-spectator": Stage
  readonly "name-truncation": void
  readonly "status-line": void
  readonly "map-drawn": void
  readonly keys: void
  readonly "gold-received": void
  readonly "refusal-shown": void
  readonly "bad-message-note": void
  readonly quit: void
  readonly "game-over": void
  readonly "refused-join": void
  readonly "small-window": void
  readonly "awkward-input": void
}

export type ClientCheckName = keyof ClientGives

/** What every check of `check client` works with. */
export interface ClientTools {
  readonly options: ClientCheckOptions
  /** Where the scripted servers' sockets come from. */
  readonly udp: Udp["Type"]
}

export type ClientCheck<Name extends ClientCheckName, Needs extends ClientCheckName = never> = Check<ClientGives, ClientTools, Name, Needs, UdpError | TtyError>

/** What a check's `run` is given. */
export type ClientContext<Needs extends ClientCheckName = never> = ClientTools & CheckContext<ClientGives, Needs>

/** What helpers shared by several checks need. */
export type ClientRecorder = ClientTools & Recorder
