import { MoveDirections, RedrawKey } from "../core/constants.js"
import {
  askForView,
  type ClientState,
  type ClientUpdate,
  friendsQuitNote,
  friendsSuspendNote,
  leave,
  redrawKey,
  rejoin,
  stay
} from "./state.js"
import { follow, windowFits } from "./viewport.js"

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

export const spectatorMoveNote = "the spectator watches: the whole map is in view (Q quits)"

/** Ctrl-Z: the session suspends the client; nothing goes to the server. */
export const SuspendKey = "\u001a"

/** A keystroke: the client's own keys (help, suspend, scrolling) stay here; the rest go to the server, which judges them. */
export const onKeystroke = (state: ClientState, sequence: string, now: number): ClientUpdate => {
  const cleared = { ...state, note: "", quitAsked: false }
  if (sequence === Interrupt) return leave(state, "interrupt", now)
  if (sequence === EndOfTransmission) return leave(state, "end of input", now)
  if (state.helpOpen) return stay({ ...cleared, helpOpen: false })
  if (sequence === "?") return stay({ ...cleared, helpOpen: true })
  // Stopping this process would freeze the game it serves for everyone in it.
  if (sequence === SuspendKey) return stay(state.friends > 0 ? { ...cleared, note: friendsSuspendNote } : state)
  if (state.report.forgotten) {
    // Nothing we send reaches a player any more: Enter joins again, Q leaves.
    if (sequence === "\r" || sequence === "\n") return rejoin(state, now)
    return sequence === "Q" ? leave(state, "interrupt", now) : stay(state)
  }
  const keys = Array.from(arrows[sequence] ?? sequence)
  // Function keys and Alt combinations arrive as sequences: no single keystroke to send.
  if (keys.length !== 1) return stay({ ...cleared, note: "unknown keystroke" })
  const key = keys[0]!
  if (key === "Q") {
    // Leaving a game this process serves ends it for everyone: asked once.
    const ask = state.friends > 0 && !state.quitAsked && state.leaving === undefined && state.report.joined && !state.serverSilent
    return ask ? stay({ ...cleared, quitAsked: true, note: friendsQuitNote }) : leave(state, "interrupt", now, true)
  }
  if (!state.report.joined || state.quitSentAt !== undefined) return stay(state)
  if (key === RedrawKey) return { state: askForView(cleared, now), send: [redrawKey] }
  if (!windowFits(state)) {
    if (key === "S") return stay(follow({ ...cleared, scroll: { top: 0, left: 0 } }))
    return stay({ ...cleared, note: "the window is too small: keys are not sent (S: a view that scrolls)" })
  }
  // The spectator moves nothing: in a scrolling view its move keys move the view; else they stay here.
  const spectator = state.report.role === "spectator"
  const direction = MoveDirections[key.toLowerCase()]
  if (spectator && direction !== undefined) {
    if (!state.scroll) return stay({ ...cleared, note: spectatorMoveNote })
    const [dRow, dCol] = direction
    const step = key === key.toLowerCase() ? 1 : 10
    return stay(follow({ ...cleared, scroll: { top: state.scroll.top + dRow * step, left: state.scroll.left + dCol * step } }))
  }
  const moves = !spectator && direction !== undefined
  return {
    state: {
      ...cleared,
      awaitingViewSince: moves ? now : state.awaitingViewSince,
      unansweredSince: state.unansweredSince ?? now
    },
    send: [{ _tag: "Key", key }]
  }
}

