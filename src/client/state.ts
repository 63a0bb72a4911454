import { MaxNameLength } from "../core/constants.js"
import type { ClientMessage } from "../protocol/messages.js"
import { nuggetsLeftAt } from "../protocol/endings.js"
import { type GameReport, newReport, readDatagram, readGameOver, type SessionEnd } from "../protocol/reader.js"
import { ownStanding, type Standing, type Summary } from "../protocol/summary.js"
import { type Alert, Note } from "./status.js"
import { defaultTimings, type Timings } from "./timings.js"
import type { Viewport, WindowSize } from "./viewport.js"

/**
 * What the client knows, and its reactions to the server, the keyboard and the passing of
 * time, as plain functions: no I/O here. `session.ts` feeds events in (`update.ts`), each
 * with the time it happened, and carries out what comes back. `keys.ts` judges keystrokes;
 * `timers.ts` decides what the passing of time calls for (PLAY again, Q again, the warning
 * that the server is not answering), within the patience `timings.ts` sets. The client
 * sends the server what the user typed and nothing else (the spec's KEY is "the
 * keystroke typed by the user"), apart from PLAY or SPECTATE again while nothing has come
 * back and Q again until QUIT comes.
 */

/** How the user asked to join: as a named player, or as the spectator. */
export type JoinRequest = { readonly _tag: "Player"; readonly name: string } | { readonly _tag: "Spectator" }

/** A player's own part of how its session ended: its letter and what it collected (see `withCollected`). */
export interface Collected {
  readonly you?: string
  readonly collected?: number
}

/** Why the client stops: the server ended the session, none answered, or the user left. */
export type ClientExit =
  | Exclude<SessionEnd, { readonly _tag: "GameOver" | "Quit" }>
  | { readonly _tag: "Quit"; readonly reason: string } & Collected
  /** `you`: our letter, to mark our line in the standings; `nuggetsLeft`: on the map at the end, when known. */
  | { readonly _tag: "GameOver"; readonly summary: Summary; readonly you?: string; readonly nuggetsLeft?: number | undefined }
  | { readonly _tag: "NoServer"; readonly server: string; readonly why: "no answer" | "port unreachable" }
  | { readonly _tag: "UserQuit"; readonly how: "interrupt" | "end of input" | "hangup" | "no answer" } & Collected

export interface ClientState {
  readonly request: JoinRequest
  /** Where the server is, as the user named it: `host:port`. */
  readonly server: string
  readonly timings: Timings
  /** What the server has told us. */
  readonly report: GameReport
  readonly window: WindowSize
  /** Shown right of the status line until the next key. */
  readonly note: Note | undefined
  /** Shown instead of the note until the server is heard again: what the network did. */
  readonly alert: Alert | undefined
  readonly exit: ClientExit | undefined
  readonly startedAt: number
  /** When PLAY or SPECTATE last went out, and how long until it goes again. */
  readonly joinSentAt: number
  readonly joinRetryIn: number
  /** When the server was last heard, if ever. */
  readonly heardAt: number | undefined
  /** The round trip to the server, measured (smoothed) once known. */
  readonly roundTrip: number | undefined
  /** When a move key went out, one the view says moves the player, that no DISPLAY has answered yet: it times the round trip. */
  readonly awaitingViewSince: number | undefined
  /**
   * When the first key the user typed went out that nothing has answered yet, of those the
   * server must answer: a move the view says is possible, and (from a server that answers
   * them) a key that moves nothing. Many servers answer a move into a wall, an unknown key
   * or Ctrl-L with silence, as the spec allows: silence after those means nothing.
   */
  readonly unansweredSince: number | undefined
  /** The server has answered the user's Ctrl-L, or refused a key: silence after a key that moves nothing means something. */
  readonly answersAsks: boolean
  /** The server has not answered for a while, or is gone: Q leaves at once. */
  readonly serverSilent: boolean
  /** Refusals still to come for the Ctrl-L keys the user typed: a server that knows no Ctrl-L says NO, which is not news. */
  readonly refusalsToHide: number
  /** A key of the user's went out and nothing has been heard since: a refusal may yet answer it. */
  readonly keyUnanswered: boolean
  /** When KEY Q first went out, and when it goes again if no QUIT has come. */
  readonly quitSentAt: number | undefined
  readonly quitAgainAt: number
  /** How the user asked to leave: with Q, or by ending the program (then it ends as the user's, not the server's, word). */
  readonly leaving: "Q" | "interrupt" | "end of input" | undefined
  /** When the user last typed Ctrl-L, to have the view again. */
  readonly askedAt: number
  /**
   * What the status line says is known: the nuggets left, and a player's letter (or, once a
   * DISPLAY has followed the GOLD with no OK, its OK lost: the letter shows as "?").
   * Until then it is blank, as some servers send a DISPLAY before OK, GRID and GOLD.
   */
  readonly statusKnown: boolean
  /**
   * Shown where a note goes while there is none, in the longest form that fits: `nuggets
   * play` puts its join line there.
   */
  readonly hint: ReadonlyArray<string>
  /** The help overlay is open: the next key closes it. */
  readonly helpOpen: boolean
  /**
   * Others in a game this client's own process hosts (`nuggets play`): leaving ends their
   * game, and suspending freezes it. Always 0 for a client that only joined.
   */
  readonly friends: number
  /** Q was pressed once with friends playing: the next Q ends the game for everyone. */
  readonly quitAsked: boolean
  /** Playing a map larger than the window through a view that scrolls; undefined when not. */
  readonly scroll: Viewport | undefined
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
  /** How many others are in the game this process hosts (see `ClientState.friends`). */
  | { readonly _tag: "Friends"; readonly count: number }

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
    note: undefined,
    alert: undefined,
    exit: undefined,
    startedAt: now,
    joinSentAt: now,
    joinRetryIn: timings.joinRetry,
    heardAt: undefined,
    roundTrip: undefined,
    awaitingViewSince: undefined,
    unansweredSince: undefined,
    answersAsks: false,
    serverSilent: false,
    refusalsToHide: 0,
    keyUnanswered: false,
    quitSentAt: undefined,
    quitAgainAt: 0,
    leaving: undefined,
    askedAt: now,
    statusKnown: false,
    hint,
    helpOpen: false,
    friends: 0,
    quitAsked: false,
    scroll: undefined
  },
  send: [joinMessage(request)]
})

export const stay = (state: ClientState): ClientUpdate => ({ state, send: [] })

export const quitKey: ClientMessage = { _tag: "Key", key: "Q" }

/**
 * Whether the server can be told we leave: only once it has let us in and still knows us.
 * A KEY from an address it never let in crashes two of the CS50 servers.
 */
export const mayQuit = (state: ClientState) => state.report.joined && !state.report.forgotten && state.quitSentAt === undefined

/** A datagram at `now`: read, and timed (the round trip of a move's DISPLAY, or of the first PLAY's answer). */
export const heard = (state: ClientState, data: Uint8Array | string, now: number): ClientState => {
  // A refusal long after a Ctrl-L answers something else (another key the user typed): the
  // Ctrl-L went unanswered, as many servers leave a key they do not know, and hides nothing more.
  const asked = state.refusalsToHide > 0 && now - state.askedAt > patience(state, state.timings.askAnswer)
    ? { ...state, refusalsToHide: 0 }
    : state
  const next = receive(asked, data)
  const firstAnswer = state.heardAt === undefined && state.joinSentAt === state.startedAt
  const sample = state.awaitingViewSince !== undefined && next.report.latest === "Display"
    ? now - state.awaitingViewSince
    : firstAnswer
    ? now - state.startedAt
    : undefined
  const roundTrip = sample === undefined
    ? state.roundTrip
    : state.roundTrip === undefined
    ? sample
    : Math.round((7 * state.roundTrip + sample) / 8)
  return { ...next, heardAt: now, roundTrip, answersAsks: next.answersAsks || answersAsk(state, next, now) }
}

/**
 * Whether a datagram is surely an answer to the user's latest Ctrl-L: soon after it, a GOLD
 * that changes nothing (our server's answer), which no one else's move sends. A DISPLAY
 * alone could be anyone's move; refusals and OK count wherever they come (see `withReport`).
 */
const answersAsk = (before: ClientState, after: ClientState, now: number): boolean => {
  const soon = before.refusalsToHide > 0 && now - before.askedAt <= patience(before, before.timings.askAnswer)
  const { purse, remaining } = before.report
  return soon && after.report.latest === "Gold" && after.report.purse === purse && after.report.remaining === remaining &&
    remaining !== undefined
}

export const receive = (state: ClientState, data: Uint8Array | string): ClientState =>
  withReport(state, readDatagram(state.report, data))

/** The game's end with its standings at hand, as a replay has them: nothing is worded to be read back. */
export const receiveGameOver = (state: ClientState, standings: ReadonlyArray<Standing>): ClientState =>
  withReport(state, readGameOver(state.report, standings))

/** Our letter at game over: from OK, or (the OK lost) our line of the summary, found by our name. */
const ourLetter = (state: ClientState, summary: Summary, letter: string | undefined): string | undefined =>
  state.request._tag === "Spectator"
    ? undefined
    : letter ?? ownStanding(summary, { letter: undefined, name: truncateName(state.request.name) })?.letter

/** What the server told us, now read into `report`, and what follows from it. */
const withReport = (state: ClientState, report: GameReport): ClientState => {
  const refusal = report.latest === "No" || report.latest === "Error"
  const forgottenNow = report.forgotten && !state.report.forgotten
  const hidden = refusal && !forgottenNow && report.ending === undefined && state.refusalsToHide > 0
  const leftBy = state.leaving === "Q" || state.leaving === undefined ? "interrupt" : state.leaving
  const you = report.ending?._tag === "GameOver" ? ourLetter(state, report.ending.summary, report.letter) : undefined
  const exit: ClientExit | undefined = report.ending?._tag === "GameOver" && you !== undefined
    ? { ...report.ending, you }
    : report.ending?._tag === "Quit" && state.leaving !== undefined && state.leaving !== "Q"
    ? { _tag: "UserQuit", how: leftBy }
    : report.ending ??
      // Our Q went through and its QUIT was lost: a server without the last word no longer knows us.
      (forgottenNow && state.leaving !== undefined ? { _tag: "UserQuit", how: leftBy } : undefined)
  // A refusal, once in (of a Ctrl-L or any key), or our server's OK again (its answer to Ctrl-L): the server answers what moves nothing.
  const answersAsks = state.answersAsks || (refusal && state.report.joined && report.ending === undefined) ||
    (report.latest === "Ok" && state.report.letter !== undefined)
  const okLost = report.latest === "Display" && state.report.remaining !== undefined
  const statusKnown = state.statusKnown ||
    (report.remaining !== undefined && (report.role === "spectator" || report.letter !== undefined || okLost))
  return {
    ...state,
    report,
    answersAsks,
    statusKnown,
    note: hidden ? state.note : report.note ?? state.note,
    alert: report.forgotten ? Note.AddressChanged() : undefined,
    exit,
    awaitingViewSince: report.latest === "Display" ? undefined : state.awaitingViewSince,
    unansweredSince: undefined,
    serverSilent: false,
    refusalsToHide: hidden ? state.refusalsToHide - 1 : state.refusalsToHide,
    keyUnanswered: false
  }
}

/** How long the client gives the server to answer something: its own patience, or two round trips. */
export const patience = (state: ClientState, least: number) => Math.max(least, 2 * (state.roundTrip ?? 0))

/**
 * Q, Ctrl-C, Ctrl-D or the end of input: KEY Q, then the wait for the server's QUIT (Q is
 * sent again meanwhile, see `timers.ts`). Asked twice, or with no one to tell, it leaves at once.
 */
export const leave = (state: ClientState, how: "interrupt" | "end of input", now: number, byQ = false): ClientUpdate => {
  const cleared = { ...state, note: undefined }
  if (state.leaving !== undefined) return byQ ? stay(cleared) : stay({ ...cleared, exit: { _tag: "UserQuit", how } })
  if (!state.report.joined || state.report.forgotten) return stay({ ...cleared, exit: { _tag: "UserQuit", how } })
  if (state.serverSilent) return { state: { ...cleared, exit: { _tag: "UserQuit", how: "no answer" } }, send: [quitKey] }
  return {
    state: {
      ...cleared,
      note: Note.Leaving(),
      quitSentAt: now,
      quitAgainAt: now + patience(state, state.timings.quitRetry),
      leaving: byQ ? "Q" : how
    },
    send: [quitKey]
  }
}

/** The server no longer knows us: join again as a new player, from the start. */
export const rejoin = (state: ClientState, now: number): ClientUpdate => {
  const fresh = startClient(state.request, state.server, state.window, now, state.timings, state.hint)
  const retry = patience(state, state.timings.joinRetry)
  return { ...fresh, state: { ...fresh.state, roundTrip: state.roundTrip, joinRetryIn: retry } }
}

/** The user's Ctrl-L goes out: silence after it means something only from a server known to answer it. */
export const askForView = (state: ClientState, now: number): ClientState => ({
  ...state,
  askedAt: now,
  awaitingViewSince: undefined,
  unansweredSince: state.answersAsks ? state.unansweredSince ?? now : state.unansweredSince,
  // The server answers in order: while another key the user typed is unanswered, the next refusal may be its, and is shown.
  refusalsToHide: state.keyUnanswered ? state.refusalsToHide : state.refusalsToHide + 1
})

/**
 * How a player left, with its letter and what it collected, for the words after the screen
 * (a spectator collects nothing); a game's end with the nuggets it left.
 */
export const withCollected = (exit: ClientExit, state: ClientState): ClientExit =>
  (exit._tag === "Quit" || exit._tag === "UserQuit") && state.report.role === "player" && state.report.letter !== undefined
    ? { ...exit, you: state.report.letter, collected: state.report.purse }
    : exit._tag === "GameOver"
    ? { ...exit, nuggetsLeft: nuggetsLeftAt(exit.summary, state.report.remaining) }
    : exit

export const exitCode = (exit: ClientExit): number =>
  exit._tag === "Refused" || exit._tag === "BadGrid" || exit._tag === "NoServer" ? 1 : 0
