import { Either } from "effect"
import { MaxNameLength } from "../core/constants.js"
import { type ClientMessage, decodeServerMessage, type ServerMessage } from "../protocol/messages.js"

/**
 * What the client knows, and its reactions to the server and to the keyboard, as plain
 * functions: no I/O here. `join.ts` feeds events in and carries out what comes back.
 */

export type Role = { readonly _tag: "Player"; readonly name: string } | { readonly _tag: "Spectator" }

export interface GridSize {
  readonly rows: number
  readonly cols: number
}

/** Why the session is over; decides what is printed after the screen closes and the exit code. */
export type Ending =
  | { readonly _tag: "Quit"; readonly reason: string }
  | { readonly _tag: "GameOver"; readonly summary: string }
  | { readonly _tag: "Refused"; readonly reason: string }
  | { readonly _tag: "BadGrid"; readonly reason: string }
  | { readonly _tag: "UserQuit"; readonly how: "interrupt" | "end of input" | "hangup" | "no answer" }

export interface ClientState {
  readonly role: Role
  /** The player's letter, once OK has come. */
  readonly letter: string | undefined
  readonly grid: GridSize | undefined
  readonly purse: number
  /** Nuggets left to find, once a GOLD has come. */
  readonly remaining: number | undefined
  /** Rows of the latest DISPLAY, as sent. */
  readonly display: ReadonlyArray<string> | undefined
  /** Shown right of the status line until the next key. */
  readonly note: string
  /** True once the server has answered anything that is not a refusal. */
  readonly joined: boolean
  /** KEY Q went out: never send it twice. */
  readonly quitSent: boolean
  readonly ending: Ending | undefined
}

export const initialState = (role: Role): ClientState => ({
  role,
  letter: undefined,
  grid: undefined,
  purse: 0,
  remaining: undefined,
  display: undefined,
  note: "",
  joined: false,
  quitSent: false,
  ending: undefined
})

/** The spec: a player's name is cut to MaxNameLength characters before PLAY. */
export const truncateName = (name: string): string => Array.from(name).slice(0, MaxNameLength).join("")

export const joinMessage = (role: Role): ClientMessage =>
  role._tag === "Player" ? { _tag: "Play", name: truncateName(role.name) } : { _tag: "Spectate" }

export type ClientEvent =
  | { readonly _tag: "Datagram"; readonly data: Uint8Array | string }
  /** One keystroke as the terminal sent it: a character or an escape sequence. */
  | { readonly _tag: "Key"; readonly sequence: string }
  | { readonly _tag: "EndOfInput" }
  | { readonly _tag: "Hangup" }
  /** The player pressed Q a while ago and the server never said QUIT: it is gone. */
  | { readonly _tag: "QuitUnanswered" }

export interface Step {
  readonly state: ClientState
  readonly send: ReadonlyArray<ClientMessage>
}

const stay = (state: ClientState): Step => ({ state, send: [] })

const userQuit = (state: ClientState, how: Extract<Ending, { _tag: "UserQuit" }>["how"]): Step => ({
  state: { ...state, quitSent: true, ending: { _tag: "UserQuit", how } },
  send: state.quitSent ? [] : [{ _tag: "Key", key: "Q" }]
})

export const step = (state: ClientState, event: ClientEvent): Step => {
  if (state.ending) return stay(state)
  switch (event._tag) {
    case "Datagram":
      return stay(receive(state, event.data))
    case "Key":
      return pressKey(state, event.sequence)
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
export const pressKey = (state: ClientState, sequence: string): Step => {
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

const decoder = new TextDecoder()

/** The first word of a datagram, to tell a broken GRID from other broken messages. */
const typeOf = (data: Uint8Array | string): string => {
  const text = typeof data === "string" ? data : decoder.decode(data.subarray(0, 16))
  return text.split(/[ \n]/, 1)[0] ?? ""
}

export const receive = (state: ClientState, data: Uint8Array | string): ClientState => {
  const decoded = decodeServerMessage(data)
  if (Either.isRight(decoded)) return apply(state, decoded.right)
  const error = decoded.left
  // Without a sane grid size nothing can be drawn and no window can be big enough.
  if (typeOf(data) === "GRID") return { ...state, ending: { _tag: "BadGrid", reason: error.reason } }
  return { ...state, note: `${error.kind} message from server: ${error.reason}` }
}

export const apply = (state: ClientState, message: ServerMessage): ClientState => {
  switch (message._tag) {
    case "Ok":
      return state.role._tag === "Player" ? { ...state, letter: message.letter, joined: true } : state
    case "No":
    case "Error": {
      // PLAY or SPECTATE answered with NO before anything else: the server will not have us.
      if (!state.joined) return { ...state, ending: { _tag: "Refused", reason: message.reason } }
      return { ...state, note: message.reason || (message._tag === "No" ? "NO" : "ERROR") }
    }
    case "Grid":
      return withDisplayNote({ ...state, grid: { rows: message.rows, cols: message.cols }, joined: true })
    case "Gold":
      return {
        ...state,
        joined: true,
        purse: message.purse,
        remaining: message.remaining,
        note: message.collected > 0 ? `GOLD received: ${message.collected}` : state.note
      }
    case "Display":
      return withDisplayNote({ ...state, joined: true, display: displayRows(message.grid) })
    case "Quit":
      // The later CS50 servers refuse a player with QUIT instead of NO.
      if (!state.joined) return { ...state, ending: { _tag: "Refused", reason: message.reason } }
      return { ...state, ending: { _tag: "Quit", reason: message.reason } }
    case "GameOver":
      return { ...state, ending: { _tag: "GameOver", summary: message.summary } }
  }
}

/** The rows of a DISPLAY string: each row ends with a newline, so the last split is empty. */
export const displayRows = (grid: string): ReadonlyArray<string> => {
  const rows = grid.split("\n").map((row) => row.replace(/\r$/, ""))
  if (rows.length > 0 && rows[rows.length - 1] === "") rows.pop()
  return rows
}

export const displaySizeOf = (rows: ReadonlyArray<string>): GridSize => ({
  rows: rows.length,
  cols: rows.reduce((widest, row) => Math.max(widest, Array.from(row).length), 0)
})

/** A DISPLAY that disagrees with GRID is still drawn (clipped or padded), but the user is told. */
const withDisplayNote = (state: ClientState): ClientState => {
  if (!state.grid || !state.display) return state
  const { rows, cols } = state.grid
  const mismatch = state.display.length !== rows || state.display.some((row) => Array.from(row).length !== cols)
  if (!mismatch) return state
  const shown = displaySizeOf(state.display)
  return { ...state, note: `DISPLAY is ${shown.rows}x${shown.cols}, GRID said ${rows}x${cols}` }
}

/** The size the screen is drawn for: GRID's, or the DISPLAY's own while GRID is still on its way. */
export const gridSize = (state: ClientState): GridSize | undefined =>
  state.grid ?? (state.display ? displaySizeOf(state.display) : undefined)

export const exitCode = (ending: Ending): number =>
  ending._tag === "Refused" || ending._tag === "BadGrid" ? 1 : 0
