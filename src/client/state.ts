import { MaxNameLength } from "../core/constants.js"
import type { GridSize } from "../protocol/display.js"
import type { ClientMessage } from "../protocol/messages.js"
import { type GameReport, newReport, readDatagram, type SessionEnd } from "../protocol/reader.js"

/**
 * What the client knows, and its reactions to the server and to the keyboard, as plain
 * functions: no I/O here. `join.ts` feeds events in and carries out what comes back.
 */

/** How the user asked to join: as a named player, or as the spectator. */
export type JoinRequest = { readonly _tag: "Player"; readonly name: string } | { readonly _tag: "Spectator" }

/** Why the client stops: the server ended the session, or the user left. */
export type ClientExit =
  | SessionEnd
  | { readonly _tag: "UserQuit"; readonly how: "interrupt" | "end of input" | "hangup" | "no answer" }

export interface ClientState {
  readonly request: JoinRequest
  /** What the server has told us. */
  readonly report: GameReport
  /** Shown right of the status line until the next key. */
  readonly note: string
  /** KEY Q went out: never send it twice. */
  readonly quitSent: boolean
  readonly exit: ClientExit | undefined
}

export const initialState = (request: JoinRequest): ClientState => ({
  request,
  report: newReport(request._tag === "Player" ? "player" : "spectator"),
  note: "",
  quitSent: false,
  exit: undefined
})

/** The spec: a player's name is cut to MaxNameLength characters before PLAY. */
export const truncateName = (name: string): string => Array.from(name).slice(0, MaxNameLength).join("")

export const joinMessage = (request: JoinRequest): ClientMessage =>
  request._tag === "Player" ? { _tag: "Play", name: truncateName(request.name) } : { _tag: "Spectate" }

export type ClientEvent =
  | { readonly _tag: "Datagram"; readonly data: Uint8Array | string }
  /** One keystroke as the terminal sent it: a character or an escape sequence. */
  | { readonly _tag: "Key"; readonly sequence: string }
  | { readonly _tag: "EndOfInput" }
  | { readonly _tag: "Hangup" }
  /** The player pressed Q a while ago and the server never said QUIT: it is gone. */
  | { readonly _tag: "QuitUnanswered" }

/** The client's new state and what to send the server because of one event. */
export interface ClientUpdate {
  readonly state: ClientState
  readonly send: ReadonlyArray<ClientMessage>
}

const stay = (state: ClientState): ClientUpdate => ({ state, send: [] })

const userQuit = (state: ClientState, how: Extract<ClientExit, { _tag: "UserQuit" }>["how"]): ClientUpdate => ({
  state: { ...state, quitSent: true, exit: { _tag: "UserQuit", how } },
  send: state.quitSent ? [] : [{ _tag: "Key", key: "Q" }]
})

export const update = (state: ClientState, event: ClientEvent): ClientUpdate => {
  if (state.exit) return stay(state)
  switch (event._tag) {
    case "Datagram":
      return stay(receive(state, event.data))
    case "Key":
      return onKeystroke(state, event.sequence)
    case "EndOfInput":
      return userQuit(state, "end of input")
    case "Hangup":
      return userQuit(state, "hangup")
    case "QuitUnanswered":
      return state.quitSent ? userQuit(state, "no answer") : stay(state)
  }
}

const Interrupt = "\u0003"
/** In raw mode the terminal sends no EOF: Ctrl-D is a keystroke, and it means the same. */
const EndOfTransmission = "\u0004"

/** Every single keystroke goes to the server, which judges it; only Ctrl-C and Ctrl-D end here. */
export const onKeystroke = (state: ClientState, sequence: string): ClientUpdate => {
  const cleared = { ...state, note: "" }
  if (sequence === Interrupt) return userQuit(cleared, "interrupt")
  if (sequence === EndOfTransmission) return userQuit(cleared, "end of input")
  const keys = Array.from(sequence)
  // Arrows, function keys and Alt combinations arrive as sequences: no single keystroke to send.
  if (keys.length !== 1) return stay({ ...cleared, note: "unknown keystroke" })
  const key = keys[0]!
  return {
    state: key === "Q" ? { ...cleared, quitSent: true } : cleared,
    send: key === "Q" && state.quitSent ? [] : [{ _tag: "Key", key }]
  }
}

export const receive = (state: ClientState, data: Uint8Array | string): ClientState => {
  const report = readDatagram(state.report, data)
  return { ...state, report, note: report.note ?? state.note, exit: report.ending }
}

/** The size the screen is drawn for: GRID's, or the DISPLAY's own while GRID is still on its way. */
export const gridSize = (state: ClientState): GridSize | undefined => {
  const { grid, view } = state.report
  return grid ?? (view ? { rows: view.length, cols: view[0]?.length ?? 0 } : undefined)
}

export const exitCode = (exit: ClientExit): number => (exit._tag === "Refused" || exit._tag === "BadGrid" ? 1 : 0)
