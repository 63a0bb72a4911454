import { type ClientState, type ClientUpdate, joinMessage, patience, quitKey, stay } from "./state.js"
import { Note } from "./status.js"

/**
 * What the passing of time calls for: PLAY again while nothing at all has come back
 * (backing off), Q again until QUIT comes, and the warning that the server is not
 * answering. Nothing else goes out of the client's own accord: a view that was lost is
 * made good by the user's next key or the next change in sight, as a bot's is. The server
 * is said not to answer only when a key the user typed, one it must answer (see
 * `ClientState.unansweredSince`), goes unanswered; a closed port the client hears of at once.
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
  // The server forgot us: nothing to send until the user chooses to join again or leave.
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
  if (state.unansweredSince !== undefined && now - state.unansweredSince >= timings.silence && !state.serverSilent) {
    return stay({ ...state, serverSilent: true, alert: Note.NotAnswering() })
  }
  return stay(state)
}
