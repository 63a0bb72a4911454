import type { GridSize } from "../protocol/display.js"
import type { GameReport } from "../protocol/reader.js"

/** The window's size, in characters. */
export interface WindowSize {
  readonly columns: number
  readonly rows: number
}

/** The part of the grid a scrolling view shows: its top-left gridpoint. */
export interface Viewport {
  readonly top: number
  readonly left: number
}

/** What placing the grid in the window depends on. */
export interface Framed {
  readonly report: Pick<GameReport, "grid" | "view" | "position">
  readonly window: WindowSize
  /** Playing a map larger than the window through a view that scrolls; undefined when not. */
  readonly scroll: Viewport | undefined
}

/** The size the screen is drawn for: GRID's, or the DISPLAY's own while GRID is still on its way. */
export const gridSize = (state: Framed): GridSize | undefined => {
  const { grid, view } = state.report
  return grid ?? (view ? { rows: view.length, cols: view[0]?.length ?? 0 } : undefined)
}

/** The window the spec asks for: NR+1 rows (the status line and the grid) by NC columns. */
export const neededWindow = (grid: GridSize): WindowSize => ({ columns: grid.cols, rows: grid.rows + 1 })

/** Whether the grid is shown whole, or through a scrolling view. */
export const windowFits = (state: Framed): boolean => {
  const grid = gridSize(state)
  if (grid === undefined || state.scroll !== undefined) return true
  const needed = neededWindow(grid)
  return state.window.columns >= needed.columns && state.window.rows >= needed.rows
}

/** The rows of the grid a window shows below its status line, and its columns. */
export const gridArea = (window: WindowSize): WindowSize => ({ columns: window.columns, rows: Math.max(0, window.rows - 1) })

/**
 * The scrolling view, kept within the grid and around the player: when `@` comes within a
 * quarter of the view's edge, the view moves to put it in the middle again.
 */
export const follow = <S extends Framed>(state: S): S => {
  const grid = gridSize(state)
  if (state.scroll === undefined || grid === undefined) return state
  const area = gridArea(state.window)
  let { left, top } = state.scroll
  const at = state.report.position
  if (at) {
    const marginRows = Math.floor(area.rows / 4)
    const marginCols = Math.floor(area.columns / 4)
    if (at.row < top + marginRows || at.row >= top + area.rows - marginRows) top = at.row - Math.floor(area.rows / 2)
    if (at.col < left + marginCols || at.col >= left + area.columns - marginCols) left = at.col - Math.floor(area.columns / 2)
  }
  top = Math.max(0, Math.min(top, grid.rows - area.rows))
  left = Math.max(0, Math.min(left, grid.cols - area.columns))
  return top === state.scroll.top && left === state.scroll.left ? state : { ...state, scroll: { top, left } }
}
