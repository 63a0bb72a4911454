import { cursorHide, cursorShow, cursorTo, eraseScreen } from "ansi-escapes"
import { frameDiff } from "../paint.js"
import { farewell, type Screen } from "../screen.js"
import { withCollected } from "../state.js"
import { gapBefore, type Moment } from "./moments.js"
import { momentScreen } from "./screen.js"

/**
 * An asciinema v2 cast of a viewer's screen: a header line, then `[seconds, "o", text]`
 * events, the text being exactly what the terminal client would have written. Timing is
 * the recording's own (times `speed`), long idle gaps capped. The status line says which
 * move it is, without the terminal playback's bar and clock (asciinema's player has its
 * own). It ends with the game-over summary, and gives the terminal its cursor back.
 */
export const castOf = (
  moments: ReadonlyArray<Moment>,
  options: {
    readonly title: string
    readonly started: string
    readonly moves: number
    readonly speed?: number
    /** In colour unless false: asciinema plays the terminal's colours back. */
    readonly colour?: boolean
  }
): string => {
  const speed = options.speed ?? 1
  const colour = options.colour ?? true
  const first = moments[0]
  const grid = first?.client.report.grid ?? { rows: 23, cols: 80 }
  // Wide enough for the status line of a small map, and never narrower than the map.
  const window = { columns: Math.max(80, grid.cols), rows: grid.rows + 1 }
  const header = {
    version: 2,
    width: window.columns,
    height: window.rows,
    timestamp: Math.floor(Date.parse(options.started) / 1000),
    title: options.title
  }
  const lines = [JSON.stringify(header)]
  let seconds = 0
  let shown: Screen | undefined
  const event = (text: string) => lines.push(JSON.stringify([Number(seconds.toFixed(3)), "o", text]))
  moments.forEach((moment, index) => {
    seconds += gapBefore(moments, index) / 1000 / speed
    const next = momentScreen(moment, window, { moves: options.moves, speed, progress: false })
    const diff = (shown === undefined ? cursorHide : "") + frameDiff(shown, next, colour)
    shown = next
    if (diff) event(diff)
  })
  const last = moments.at(-1)?.client
  const exit = last?.exit && withCollected(last.exit, last)
  seconds += 1 / speed
  event(
    (exit ? cursorTo(0, 0) + eraseScreen + farewell(exit, window.columns).split("\n").join("\r\n") + "\r\n" : "") + cursorShow
  )
  return lines.join("\n") + "\n"
}
