import { MoveDirections, RedrawKey } from "../core/constants.js"
import { canStepOn } from "../protocol/display.js"
import { EndOfTransmissionKey, InterruptKey, SuspendKey, terminalArrow } from "./keymap.js"
import { askForView, type ClientState, type ClientUpdate, leave, rejoin, stay } from "./state.js"
import { Note } from "./status.js"
import { follow, windowFits } from "./viewport.js"

export { SuspendKey } from "./keymap.js"

/** Ctrl-Z did not stop the process (the session tried): says so. */
export const cannotSuspend = (state: ClientState): ClientState => ({ ...state, note: Note.CannotSuspend() })

/** A keystroke: the client's own keys (help, suspend, scrolling) stay here; the rest go to the server, which judges them. */
export const onKeystroke = (state: ClientState, sequence: string, now: number): ClientUpdate => {
  const cleared = { ...state, note: undefined, quitAsked: false }
  if (sequence === InterruptKey) return leave(state, "interrupt", now)
  if (sequence === EndOfTransmissionKey) return leave(state, "end of input", now)
  if (state.helpOpen) return stay({ ...cleared, helpOpen: false })
  if (sequence === "?") return stay({ ...cleared, helpOpen: true })
  // Stopping this process would freeze the game it serves for everyone in it.
  if (sequence === SuspendKey) return stay(state.friends > 0 ? { ...cleared, note: Note.NoSuspendWithFriends() } : state)
  if (state.report.forgotten) {
    // Nothing we send reaches a player any more: Enter joins again, Q leaves.
    if (sequence === "\r" || sequence === "\n") return rejoin(state, now)
    return sequence === "Q" ? leave(state, "interrupt", now) : stay(state)
  }
  const keys = Array.from(terminalArrow(sequence) ?? sequence)
  // Function keys and Alt combinations arrive as sequences: no single keystroke to send.
  if (keys.length !== 1) return stay({ ...cleared, note: Note.UnknownKey() })
  const key = keys[0]!
  if (key === "Q") {
    // Leaving a game this process serves ends it for everyone: asked once.
    const ask = state.friends > 0 && !state.quitAsked && state.leaving === undefined && state.report.joined && !state.serverSilent
    return ask ? stay({ ...cleared, quitAsked: true, note: Note.QuitAsksAgain() }) : leave(state, "interrupt", now, true)
  }
  if (!state.report.joined || state.quitSentAt !== undefined) return stay(state)
  if (key === RedrawKey) return { state: askForView(cleared, now), send: [{ _tag: "Key", key }] }
  // The screen says the window is too small, and that S gives a view that scrolls: keys but Q stay here.
  if (!windowFits(state)) return stay(key === "S" ? follow({ ...cleared, scroll: { top: 0, left: 0 } }) : cleared)
  // The spectator moves nothing: in a scrolling view its move keys move the view; else they stay here.
  const spectator = state.report.role === "spectator"
  const direction = MoveDirections[key.toLowerCase()]
  if (spectator && direction !== undefined) {
    if (!state.scroll) return stay({ ...cleared, note: Note.SpectatorWatches() })
    const [dRow, dCol] = direction
    const step = key === key.toLowerCase() ? 1 : 10
    return stay(follow({ ...cleared, scroll: { top: state.scroll.top + dRow * step, left: state.scroll.left + dCol * step } }))
  }
  // A move the view says is possible must be answered by a DISPLAY; a move into a wall, or
  // from where the view does not show us, may well get no answer, and other keys only from
  // a server that answers what moves nothing.
  const moves = !spectator && direction !== undefined && movesFrom(state, direction)
  const mustAnswer = moves || (direction === undefined && state.answersAsks)
  return {
    state: {
      ...cleared,
      awaitingViewSince: moves ? now : state.awaitingViewSince,
      unansweredSince: mustAnswer ? state.unansweredSince ?? now : state.unansweredSince,
      // A refusal from now on may answer this key: the user must see it, so none is taken
      // for the answer to an earlier Ctrl-L any more (at worst that one's refusal shows).
      refusalsToHide: 0,
      keyUnanswered: true
    },
    send: [{ _tag: "Key", key }]
  }
}

/** Whether the view shows a spot the player can step on next to it, in that direction. */
const movesFrom = (state: ClientState, [dRow, dCol]: readonly [number, number]): boolean => {
  const { position, view } = state.report
  const next = position === undefined ? undefined : view?.[position.row + dRow]?.[position.col + dCol]
  return next !== undefined && canStepOn(next)
}
