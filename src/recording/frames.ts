import { Effect } from "effect"
import { type Screen, screen } from "../client/screen.js"
import { type ClientState, receive, startClient } from "../client/state.js"
import { PlayerLetters } from "../core/constants.js"
import { type Envelope, type GameState, standings, type Viewer } from "../core/state.js"
import { viewOf } from "../core/view.js"
import { gameOverMessage, quitText, summaryText } from "../protocol/dialect.js"
import { viewText } from "../protocol/display.js"
import { encodeServerMessage, type ServerMessage } from "../protocol/messages.js"
import type { Recording } from "./format.js"
import { replayRecording, type ReplayMismatch, type ReplayResult } from "./replay.js"

/** What one viewer saw after a move: the client's own state, drawn by the client's own screen code. */
export interface Frame {
  /** Moves replayed so far. */
  readonly move: number
  /** Milliseconds after the recording began. */
  readonly t: number
  readonly client: ClientState
}

/** Whose screen a replay shows: the spectator's (the whole map), or a player's, by letter. */
export type Watching = "spectator" | string

const viewerOf = (watching: Watching): Viewer => (watching === "spectator" ? "spectator" : PlayerLetters.indexOf(watching))

/**
 * The screens `watching` saw, move by move, from the real core replaying the recording.
 * What the server would have sent that viewer is fed, as datagrams, to the same client
 * state the terminal client uses. The spectator's screen is shown from the start, as if
 * a spectator had watched all along; a player's from the moment it joined.
 */
export const recordedFrames = (
  recording: Recording,
  watching: Watching
): Effect.Effect<{ readonly frames: ReadonlyArray<Frame>; readonly result: ReplayResult }, ReplayMismatch> =>
  Effect.gen(function*() {
    const viewer = viewerOf(watching)
    const dialect = recording.header.dialect
    const frames: Array<Frame> = []
    let client: ClientState = startClient(
      viewer === "spectator" ? { _tag: "Spectator" } : { _tag: "Player", name: watching },
      "the recording",
      { columns: 80, rows: 24 },
      0
    ).state
    const hear = (message: ServerMessage) => {
      client = receive(client, encodeServerMessage(message))
    }
    const display = (state: GameState) => hear({ _tag: "Display", grid: viewText(viewOf(state, viewer)) })
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
          if (state.over) hear(gameOverMessage(dialect, summaryText(standings(state))))
        } else {
          const mine = transition.notices.filter((envelope) => envelope.viewer === viewer)
          if (mine.length === 0) return
          started = true
          for (const envelope of mine) hear(messageFor(envelope, state, dialect))
        }
        frames.push({ move, t, client })
      })
    )
    if (!started && watching !== "spectator") frames.length = 0
    return { frames, result }
  })

/** The message the server sent for a notice, as it would have said it. */
const messageFor = (envelope: Envelope, state: GameState, dialect: Recording["header"]["dialect"]): ServerMessage => {
  const { notice, viewer } = envelope
  switch (notice._tag) {
    case "Display":
      return { _tag: "Display", grid: viewText(viewOf(state, viewer)) }
    case "Quit":
      return { _tag: "Quit", reason: quitText[notice.reason] }
    case "GameOver":
      return gameOverMessage(dialect, summaryText(standings(state)))
    default:
      return notice
  }
}

/** The longest pause between two moves a replay keeps: idle minutes are not worth watching. */
export const longestGap = 2000

/** How long to wait before frame `index` (after the one before it), at real pace, gaps capped. */
export const gapBefore = (frames: ReadonlyArray<Frame>, index: number): number =>
  index === 0 ? 0 : Math.min(longestGap, Math.max(0, frames[index]!.t - frames[index - 1]!.t))

const clockText = (ms: number) => {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

/** The frame as the client's screen, with where the replay is on the status line. */
export const frameScreen = (
  frame: Frame,
  window: { readonly columns: number; readonly rows: number },
  where: { readonly moves: number; readonly speed?: number; readonly paused?: boolean }
): Screen => {
  const speed = where.speed === undefined || where.speed === 1 ? "" : ` x${where.speed}`
  const position = `[move ${frame.move}/${where.moves} ${clockText(frame.t)}${speed}${where.paused ? " paused" : ""}]`
  return screen({ ...frame.client, window, note: frame.client.note ? `${position}  ${frame.client.note}` : position })
}
