import { type ClientEvent, type ClientState, type ClientUpdate, heard, leave, mayQuit, quitKey, stay } from "./state.js"
import { Note } from "./status.js"
import { onKeystroke } from "./keys.js"
import { onTick } from "./timers.js"
import { follow } from "./viewport.js"

/** Reacts to one event that happened at time `now` (milliseconds, on any steady clock). */
export const update = (state: ClientState, event: ClientEvent, now: number): ClientUpdate => {
  if (state.exit) return stay(state)
  switch (event._tag) {
    case "Datagram":
      return stay(follow(heard(state, event.data, now)))
    case "Key":
      return onKeystroke(state, event.sequence, now)
    case "Tick":
      return onTick(state, now)
    case "Resize":
      return stay(follow({ ...state, window: event.window }))
    case "Unreachable":
      return stay(
        state.report.joined
          ? { ...state, serverSilent: true, alert: Note.PortClosed() }
          : { ...state, exit: { _tag: "NoServer", server: state.server, why: "port unreachable" } }
      )
    case "EndOfInput":
      return leave(state, "end of input", now)
    case "Hangup":
      // No terminal left to wait on: gone at once, with a word to the server.
      return { state: { ...state, exit: { _tag: "UserQuit", how: "hangup" } }, send: mayQuit(state) ? [quitKey] : [] }
    case "Friends":
      return stay(event.count === state.friends ? state : { ...state, friends: event.count })
  }
}
