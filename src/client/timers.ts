import type { ClientMessage } from "../protocol/messages.js"
import {
  askForView,
  type ClientState,
  type ClientUpdate,
  joinMessage,
  patience,
  quitKey,
  redrawKey,
  stay
} from "./state.js"
import { Note } from "./status.js"

/** A player whose OK was lost asks this many times at most: only our server answers with it. */
const maxLetterAsks = 3

/**
 * What the passing of time calls for: PLAY again while nothing at all has come back
 * (backing off), Q again until QUIT comes, the view asked for again when a move's DISPLAY
 * is late or the game's end never came, and a question (Ctrl-L) to a server that has been
 * silent for a while: a refusal proves it alive as well as a view does. Only when what the
 * server must answer goes unanswered (see `ClientState.unansweredSince`) does the client say
 * the server is not answering; a closed port it hears of at once.
 */
export const onTick = (state: ClientState, now: number): ClientUpdate => {
  const { report, timings } = state
  if (!report.joined) {
    if (now - state.startedAt >= timings.answerTimeout) {
      return stay({ ...state, exit: { _tag: "NoServer", server: state.server, why: "no answer" } })
    }
    // Any answer at all ends the retries: a server that answers PLAY with a new player each time makes ghosts.
    if (state.heardAt !== undefined || now - state.joinSentAt < state.joinRetryIn) return stay(state)
    return {
      state: { ...state, joinSentAt: now, joinRetryIn: Math.min(2 * state.joinRetryIn, timings.maxJoinRetry) },
      send: [joinMessage(state.request)]
    }
  }
  // The server forgot us: nothing to ask until the user chooses to join again or leave.
  if (report.forgotten) return stay(state)
  if (state.quitSentAt !== undefined) {
    if (now - state.quitSentAt >= timings.quitTimeout) {
      const how = state.leaving === "Q" || state.leaving === undefined ? "no answer" : state.leaving
      return stay({ ...state, exit: { _tag: "UserQuit", how } })
    }
    // A spectator's Q is sent once: one CS50 server crashes on a second Q from a spectator it has let go.
    if (report.role === "spectator" || now < state.quitAgainAt) return stay(state)
    return { state: { ...state, quitAgainAt: now + patience(state, timings.quitRetry) }, send: [quitKey] }
  }
  const send: Array<ClientMessage> = []
  let next = state
  const repairAfter = patience(state, timings.viewRepair)
  const sinceAsked = now - state.askedAt
  // A move with no view after it, no GOLD yet, or no nuggets left and no GAMEOVER: something was lost.
  const viewLost = state.awaitingViewSince !== undefined && now - state.awaitingViewSince >= repairAfter
  const goldLost = report.remaining === undefined && sinceAsked >= repairAfter
  const endLost = report.remaining === 0 && sinceAsked >= repairAfter
  const letterLost = report.role === "player" && report.letter === undefined && state.letterAsks < maxLetterAsks &&
    sinceAsked >= repairAfter
  // Long silence: an idle player or the spectator would never learn otherwise that the server died.
  const quiet = now - (state.heardAt ?? state.startedAt) >= timings.liveness && sinceAsked >= timings.liveness
  if (viewLost || goldLost || endLost || letterLost || quiet) {
    next = askForView(letterLost ? { ...next, letterAsks: next.letterAsks + 1 } : next, now, quiet)
    send.push(redrawKey)
  }
  if (next.unansweredSince !== undefined && now - next.unansweredSince >= timings.silence && !next.serverSilent) {
    next = { ...next, serverSilent: true, alert: Note.NotAnswering() }
  }
  return { state: next, send }
}
