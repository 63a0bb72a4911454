import { Effect } from "effect"
import { PlayerLetters } from "../../core/constants.js"
import { type GameState, standings, type Viewer } from "../../core/state.js"
import { viewOf } from "../../core/view.js"
import { viewText } from "../../protocol/display.js"
import { encodeServerMessage, type ServerMessage } from "../../protocol/messages.js"
import { noticeMessage } from "../../protocol/notices.js"
import type { Recording } from "../../recording/format.js"
import { longestGap } from "../../recording/pace.js"
import { replayRecording, type ReplayMismatch, type ReplayResult } from "../../recording/replay.js"
import { type ClientState, receive, receiveGameOver, startClient } from "../state.js"

/** What one viewer saw after a move: the client's own state, drawn by the client's own screen code. */
export interface Moment {
  /** Moves replayed so far. */
  readonly move: number
  /** Milliseconds after the recording began. */
  readonly t: number
  readonly client: ClientState
}

/**
 * The screens `viewer` saw, move by move, from the real core replaying the recording.
 * What the server would have sent that viewer is fed, as datagrams, to the same client
 * state the terminal client uses; the game's end comes with its standings, as data. The
 * spectator's screen is shown from the start, as if a spectator had watched all along; a
 * player's from the moment it joined.
 */
export const recordedMoments = (
  recording: Recording,
  viewer: Viewer
): Effect.Effect<{ readonly moments: ReadonlyArray<Moment>; readonly result: ReplayResult }, ReplayMismatch> =>
  Effect.gen(function*() {
    const moments: Array<Moment> = []
    let client: ClientState = startClient(
      viewer === "spectator" ? { _tag: "Spectator" } : { _tag: "Player", name: PlayerLetters[viewer]! },
      "the recording",
      { columns: 80, rows: 24 },
      0
    ).state
    const hear = (message: ServerMessage) => {
      client = receive(client, encodeServerMessage(message))
    }
    const display = (state: GameState) => hear({ _tag: "Display", grid: viewText(viewOf(state, viewer)) })
    const gameOver = (state: GameState) => {
      client = receiveGameOver(client, standings(state))
    }
    let started = false
    let remaining: number | undefined
    const result = yield* replayRecording(recording, ({ move, t, transition }, state) =>
      Effect.sync(() => {
        if (client.exit) return
        if (viewer === "spectator") {
          if (!started) {
            started = true
            hear({ _tag: "Grid", rows: state.map.rows, cols: state.map.cols })
          }
          if (state.goldRemaining !== remaining) hear({ _tag: "Gold", collected: 0, purse: 0, remaining: remaining = state.goldRemaining })
          display(state)
          if (state.over) gameOver(state)
        } else {
          const mine = transition.notices.filter((envelope) => envelope.viewer === viewer)
          if (mine.length === 0) return
          started = true
          for (const { notice } of mine) {
            if (notice._tag === "Display") display(state)
            else if (notice._tag === "GameOver") gameOver(state)
            else hear(noticeMessage(notice))
          }
        }
        moments.push({ move, t, client })
      })
    )
    if (!started && viewer !== "spectator") moments.length = 0
    return { moments, result }
  })

/** How long to wait before moment `index` (after the one before it), at real pace, gaps capped. */
export const gapBefore = (moments: ReadonlyArray<Moment>, index: number): number =>
  index === 0 ? 0 : Math.min(longestGap, Math.max(0, moments[index]!.t - moments[index - 1]!.t))
