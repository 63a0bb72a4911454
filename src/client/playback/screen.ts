import { replayKeyHelp } from "../keymap.js"
import { helpBox, overlay, type Screen, screen } from "../screen.js"
import { noteText, shorterStatus } from "../status.js"
import type { WindowSize } from "../viewport.js"
import type { Moment } from "./moments.js"

const clockText = (ms: number) => {
  const seconds = Math.floor(ms / 1000)
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`
}

/** How far the replay is, `[####------]`, `width` cells between the brackets. */
const progressBar = (done: number, of: number, width: number) => {
  const filled = of <= 0 ? width : Math.floor((Math.min(done, of) / of) * width)
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}]`
}

export interface Where {
  /** Moves in the whole recording. */
  readonly moves: number
  readonly speed?: number
  readonly paused?: boolean
  /** The replay's keys are shown over the screen. */
  readonly helpOpen?: boolean
  /**
   * Where the replay is, as a bar and a clock: for the terminal's own playback. A cast goes
   * without, its player having both.
   */
  readonly progress?: boolean
}

/**
 * Where the replay is, in the longest form that fits beside the status line: the move, a
 * progress bar and the time into the game (unless `progress` is false), the speed and
 * whether it is paused.
 */
export const positionForms = (moment: Moment, where: Where): ReadonlyArray<string> => {
  const speed = where.speed === undefined || where.speed === 1 ? "" : ` x${where.speed}`
  const state = `${speed}${where.paused ? " paused" : ""}`
  const count = `${moment.move}/${where.moves}`
  if (where.progress === false) return [`move ${count}${state}`, `${count}${state}`, count]
  const clock = clockText(moment.t)
  return [
    `move ${count} ${progressBar(moment.move, where.moves, 20)} ${clock}${state}`,
    `move ${count} ${progressBar(moment.move, where.moves, 10)} ${clock}${state}`,
    `${count} ${progressBar(moment.move, where.moves, 10)}${state}`,
    `${count} ${progressBar(moment.move, where.moves, 5)}${state}`,
    `${count}${state}`,
    count
  ]
}

/** The moment as the client's screen, with where the replay is on the status line, and the keys when asked. */
export const momentScreen = (moment: Moment, window: WindowSize, where: Where): Screen => {
  const state = { ...moment.client, window }
  const status = shorterStatus(state.report).find((text) => text.length <= window.columns) ?? ""
  const room = window.columns - status.length - 2
  const forms = positionForms(moment, where)
  const position = forms.find((text) => text.length <= room) ?? forms.at(-1)!
  const note = moment.client.note && noteText(moment.client.note)
  const shown = note && position.length + 2 + note.length <= room ? `${position}  ${note}` : position
  const drawn = screen({ ...state, helpOpen: false }, [shown])
  return where.helpOpen ? overlay(drawn, helpBox(window.columns, replayKeyHelp), window.columns) : drawn
}
