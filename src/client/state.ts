import { MaxNameLength, MoveDirections, RedrawKey } from "../core/constants.js"
import type { GridSize } from "../protocol/display.js"
import type { ClientMessage } from "../protocol/messages.js"
import { type GameReport, newReport, readDatagram, type SessionEnd } from "../protocol/reader.js"

/**
 * What the client knows, and its reactions to the server, the keyboard and the passing of
 * time, as plain functions: no I/O here. `session.ts` feeds events in, each with the time
 * it happened, and carries out what comes back.
 */

/** How the user asked to join: as a named player, or as the spectator. */
export type JoinRequest = { readonly _tag: "Player"; readonly name: string } | { readonly _tag: "Spectator" }

/** Why the client stops: the server ended the session, none answered, or the user left. */
export type ClientExit =
  | Exclude<SessionEnd, { readonly _tag: "GameOver" }>
  /** `you`: our letter, to mark our line in the standings. */
  | { readonly _tag: "GameOver"; readonly summary: string; readonly you?: string }
  | { readonly _tag: "NoServer"; readonly server: string; readonly why: "no answer" | "port unreachable" }
  | { readonly _tag: "UserQuit"; readonly how: "interrupt" | "end of input" | "hangup" | "no answer" }

export interface WindowSize {
  readonly columns: number
  readonly rows: number
}

/** How patient the client is, in milliseconds. */
export interface Timings {
  /** How long the server has to answer PLAY or SPECTATE at all. */
  readonly answerTimeout: number
  /** PLAY or SPECTATE goes out again this often until the server answers. */
  readonly joinRetry: number
  /** A move key with no DISPLAY after it this long: the view is asked for again. */
  readonly viewRepair: number
  /** A key with nothing at all heard after it this long: the server is not answering. */
  readonly silence: number
  /** How long to wait for the server's QUIT after Q. */
  readonly quitTimeout: number
}

export const defaultTimings: Timings = {
  answerTimeout: 5000,
  joinRetry: 600,
  viewRepair: 500,
  silence: 3000,
  quitTimeout: 2000
}

export interface ClientState {
  readonly request: JoinRequest
  /** Where the server is, as the user named it: `host:port`. */
  readonly server: string
  readonly timings: Timings
  /** What the server has told us. */
  readonly report: GameReport
  readonly window: WindowSize
  /** Shown right of the status line until the next key. */
  readonly note: string
  readonly exit: ClientExit | undefined
  readonly startedAt: number
  /** When PLAY or SPECTATE last went out. */
  readonly joinSentAt: number
  /** When a move key went out that no DISPLAY has answered yet. */
  readonly awaitingViewSince: number | undefined
  /** When the first key went out that nothing has answered yet. */
  readonly unansweredSince: number | undefined
  /** The server has not answered for a while, or is gone: Q leaves at once. */
  readonly serverSilent: boolean
  /** Refusals still to come for the Ctrl-L keys we sent: a server that knows no Ctrl-L says NO. */
  readonly refusalsToHide: number
  /** When KEY Q went out: it is never sent twice. */
  readonly quitSentAt: number | undefined
  /** When we last asked the server for what we were missing (a view, the end of the game). */
  readonly askedAt: number
  /**
   * Shown where a note goes while there is none, in the longest form that fits: `nuggets
   * play` puts its join line there.
   */
  readonly hint: ReadonlyArray<string>
  /** The help overlay is open: the next key closes it. */
  readonly helpOpen: boolean
  /** Playing a map larger than the window through a view that scrolls; undefined when not. */
  readonly scroll: Viewport | undefined
}

/** The part of the grid a scrolling view shows: its top-left gridpoint. */
export interface Viewport {
  readonly top: number
  readonly left: number
}

/** The spec: a player's name is cut to MaxNameLength characters before PLAY. */
export const truncateName = (name: string): string => Array.from(name).slice(0, MaxNameLength).join("")

export const joinMessage = (request: JoinRequest): ClientMessage =>
  request._tag === "Player" ? { _tag: "Play", name: truncateName(request.name) } : { _tag: "Spectate" }

export type ClientEvent =
  | { readonly _tag: "Datagram"; readonly data: Uint8Array | string }
  /** One keystroke as the terminal sent it: a character or an escape sequence. */
  | { readonly _tag: "Key"; readonly sequence: string }
  /** Time passed. */
  | { readonly _tag: "Tick" }
  | { readonly _tag: "Resize"; readonly window: WindowSize }
  /** The system says nothing listens at the server's port (an ICMP "port unreachable"). */
  | { readonly _tag: "Unreachable" }
  | { readonly _tag: "EndOfInput" }
  | { readonly _tag: "Hangup" }

/** The client's new state and what to send the server because of one event. */
export interface ClientUpdate {
  readonly state: ClientState
  readonly send: ReadonlyArray<ClientMessage>
}

/** The first state, and the PLAY or SPECTATE that starts the session. */
export const startClient = (
  request: JoinRequest,
  server: string,
  window: WindowSize,
  now: number,
  timings: Timings = defaultTimings,
  hint: ReadonlyArray<string> = []
): ClientUpdate => ({
  state: {
    request,
    server,
    timings,
    report: newReport(request._tag === "Player" ? "player" : "spectator"),
    window,
    note: "",
    exit: undefined,
    startedAt: now,
    joinSentAt: now,
    awaitingViewSince: undefined,
    unansweredSince: undefined,
    serverSilent: false,
    refusalsToHide: 0,
    quitSentAt: undefined,
    askedAt: now,
    hint,
    helpOpen: false,
    scroll: undefined
  },
  send: [joinMessage(request)]
})

const stay = (state: ClientState): ClientUpdate => ({ state, send: [] })

const quitKey: ClientMessage = { _tag: "Key", key: "Q" }

const userQuit = (state: ClientState, how: Extract<ClientExit, { _tag: "UserQuit" }>["how"]): ClientUpdate => ({
  state: { ...state, exit: { _tag: "UserQuit", how } },
  send: state.quitSentAt === undefined ? [quitKey] : []
})

/** Reacts to one event that happened at time `now` (milliseconds, on any steady clock). */
export const update = (state: ClientState, event: ClientEvent, now: number): ClientUpdate => {
  if (state.exit) return stay(state)
  switch (event._tag) {
    case "Datagram":
      return stay(follow(receive(state, event.data)))
    case "Key":
      return onKeystroke(state, event.sequence, now)
    case "Tick":
      return onTick(state, now)
    case "Resize":
      return stay(follow({ ...state, window: event.window }))
    case "Unreachable":
      return stay(
        state.report.joined
          ? { ...state, serverSilent: true, note: "the server is gone (port unreachable); Q leaves" }
          : { ...state, exit: { _tag: "NoServer", server: state.server, why: "port unreachable" } }
      )
    case "EndOfInput":
      return userQuit(state, "end of input")
    case "Hangup":
      return userQuit(state, "hangup")
  }
}

export const receive = (state: ClientState, data: Uint8Array | string): ClientState => {
  const report = readDatagram(state.report, data)
  const refusal = report.latest === "No" || report.latest === "Error"
  const hidden = refusal && report.ending === undefined && state.refusalsToHide > 0
  return {
    ...state,
    report,
    note: hidden ? state.note : report.note ?? state.note,
    exit: report.ending?._tag === "GameOver" && report.letter !== undefined
      ? { ...report.ending, you: report.letter }
      : report.ending,
    awaitingViewSince: report.latest === "Display" ? undefined : state.awaitingViewSince,
    unansweredSince: undefined,
    serverSilent: false,
    refusalsToHide: hidden ? state.refusalsToHide - 1 : state.refusalsToHide
  }
}

const onTick = (state: ClientState, now: number): ClientUpdate => {
  const { report, timings } = state
  if (!report.joined) {
    if (now - state.startedAt >= timings.answerTimeout) {
      return stay({ ...state, exit: { _tag: "NoServer", server: state.server, why: "no answer" } })
    }
    if (now - state.joinSentAt >= timings.joinRetry) return { state: { ...state, joinSentAt: now }, send: [joinMessage(state.request)] }
    return stay(state)
  }
  if (state.quitSentAt !== undefined && now - state.quitSentAt >= timings.quitTimeout) return userQuit(state, "no answer")
  const send: Array<ClientMessage> = []
  let next = state
  // A view came, but the OK or the first GOLD was lost: the same request brings them again.
  const missing = (report.role === "player" && report.letter === undefined) || report.remaining === undefined
  if (missing && now - state.joinSentAt >= timings.joinRetry) {
    next = { ...next, joinSentAt: now }
    send.push(joinMessage(state.request))
  }
  // A move with no view after it, or no nuggets left and no GAMEOVER: something was lost.
  const viewLost = state.awaitingViewSince !== undefined && now - state.awaitingViewSince >= timings.viewRepair
  const endLost = report.remaining === 0 && now - state.askedAt >= timings.viewRepair
  if (viewLost || endLost) {
    next = askForView(next, now)
    send.push(redrawKey)
  }
  if (next.unansweredSince !== undefined && now - next.unansweredSince >= timings.silence && !next.serverSilent) {
    next = { ...next, serverSilent: true, note: "the server is not answering; Q leaves at once" }
  }
  return { state: next, send }
}

const redrawKey: ClientMessage = { _tag: "Key", key: RedrawKey }

const askForView = (state: ClientState, now: number): ClientState => ({
  ...state,
  askedAt: now,
  awaitingViewSince: undefined,
  unansweredSince: state.unansweredSince ?? now,
  refusalsToHide: state.refusalsToHide + 1
})

const Interrupt = "\u0003"
/** In raw mode the terminal sends no EOF: Ctrl-D is a keystroke, and it means the same. */
const EndOfTransmission = "\u0004"

/** The arrow keys, as terminals send them, and the move keys they stand for. */
const arrows: Readonly<Record<string, string>> = {
  "\u001b[A": "k",
  "\u001b[B": "j",
  "\u001b[C": "l",
  "\u001b[D": "h",
  "\u001bOA": "k",
  "\u001bOB": "j",
  "\u001bOC": "l",
  "\u001bOD": "h"
}

/** Ctrl-Z: the session suspends the client; nothing goes to the server. */
export const SuspendKey = "\u001a"

/** A keystroke: the client's own keys (help, suspend, scrolling) stay here; the rest go to the server, which judges them. */
export const onKeystroke = (state: ClientState, sequence: string, now: number): ClientUpdate => {
  const cleared = { ...state, note: "" }
  if (sequence === Interrupt) return userQuit(cleared, "interrupt")
  if (sequence === EndOfTransmission) return userQuit(cleared, "end of input")
  if (state.helpOpen) return stay({ ...cleared, helpOpen: false })
  if (sequence === "?") return stay({ ...cleared, helpOpen: true })
  if (sequence === SuspendKey) return stay(state)
  const keys = Array.from(arrows[sequence] ?? sequence)
  // Function keys and Alt combinations arrive as sequences: no single keystroke to send.
  if (keys.length !== 1) return stay({ ...cleared, note: "unknown keystroke" })
  const key = keys[0]!
  if (key === "Q") {
    // Still joining, or a server that does not answer: nothing to wait for.
    if (!state.report.joined || state.serverSilent) return userQuit(cleared, state.serverSilent ? "no answer" : "interrupt")
    if (state.quitSentAt !== undefined) return stay(cleared)
    return { state: { ...cleared, quitSentAt: now }, send: [quitKey] }
  }
  if (!state.report.joined) return stay(state)
  if (key === RedrawKey) return { state: askForView(cleared, now), send: [redrawKey] }
  if (!windowFits(state)) {
    if (key === "S") return stay(follow({ ...cleared, scroll: { top: 0, left: 0 } }))
    return stay({ ...cleared, note: "the window is too small: keys are not sent (S: a scrolling view)" })
  }
  // The spectator moves nothing: in a scrolling view its move keys move the view.
  const pan = state.scroll && state.report.role === "spectator" ? MoveDirections[key.toLowerCase()] : undefined
  if (pan && state.scroll) {
    const [dRow, dCol] = pan
    const step = key === key.toLowerCase() ? 1 : 10
    return stay(follow({ ...cleared, scroll: { top: state.scroll.top + dRow * step, left: state.scroll.left + dCol * step } }))
  }
  const moves = state.report.role === "player" && MoveDirections[key.toLowerCase()] !== undefined
  return {
    state: {
      ...cleared,
      awaitingViewSince: moves ? now : state.awaitingViewSince,
      unansweredSince: state.unansweredSince ?? now
    },
    send: [{ _tag: "Key", key }]
  }
}

/** The size the screen is drawn for: GRID's, or the DISPLAY's own while GRID is still on its way. */
export const gridSize = (state: ClientState): GridSize | undefined => {
  const { grid, view } = state.report
  return grid ?? (view ? { rows: view.length, cols: view[0]?.length ?? 0 } : undefined)
}

/** The window the spec asks for: NR+1 rows (the status line and the grid) by NC columns. */
export const neededWindow = (grid: GridSize): WindowSize => ({ columns: grid.cols, rows: grid.rows + 1 })

/** Whether the grid is shown whole, or through a scrolling view. */
export const windowFits = (state: ClientState): boolean => {
  const grid = gridSize(state)
  if (grid === undefined || state.scroll !== undefined) return true
  const needed = neededWindow(grid)
  return state.window.columns >= needed.columns && state.window.rows >= needed.rows
}

/** The rows of the grid a window shows below its status line, and its columns. */
export const gridArea = (window: WindowSize): WindowSize => ({ columns: window.columns, rows: Math.max(0, window.rows - 1) })

/**
 * The scrolling view, kept within the grid and around the player: when `@` comes within a
 * quarter of the view's edge, the view moves to put it in the middle again.
 */
export const follow = (state: ClientState): ClientState => {
  const grid = gridSize(state)
  if (state.scroll === undefined || grid === undefined) return state
  const area = gridArea(state.window)
  let { left, top } = state.scroll
  const at = state.report.position
  if (at) {
    const marginRows = Math.floor(area.rows / 4)
    const marginCols = Math.floor(area.columns / 4)
    if (at.row < top + marginRows || at.row >= top + area.rows - marginRows) top = at.row - Math.floor(area.rows / 2)
    if (at.col < left + marginCols || at.col >= left + area.columns - marginCols) left = at.col - Math.floor(area.columns / 2)
  }
  top = Math.max(0, Math.min(top, grid.rows - area.rows))
  left = Math.max(0, Math.min(left, grid.cols - area.columns))
  return top === state.scroll.top && left === state.scroll.left ? state : { ...state, scroll: { top, left } }
}

export const exitCode = (exit: ClientExit): number =>
  exit._tag === "Refused" || exit._tag === "BadGrid" || exit._tag === "NoServer" ? 1 : 0
