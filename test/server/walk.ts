import { Either } from "effect"
import { firstStepOnGrid } from "../../src/core/path.js"
import { canStepOn, parseDisplayGrid } from "../../src/protocol/display.js"
import type { Position } from "../../src/protocol/reader.js"

/** Finding one's way on a DISPLAY grid in tests, with the same reader and path finder the bots use. */

/** The rows of a DISPLAY's grid (its text after "DISPLAY\n"); throws if it is not a grid. */
export const gridLines = (grid: string): ReadonlyArray<string> => Either.getOrThrow(parseDisplayGrid(grid))

export const find = (lines: ReadonlyArray<string>, wanted: (ch: string) => boolean): Array<Position> => {
  const found: Array<Position> = []
  lines.forEach((line, row) => {
    for (let col = 0; col < line.length; col++) if (wanted(line[col]!)) found.push({ row, col })
  })
  return found
}

/**
 * The key for the first step of a shortest walk from `from` over what is drawn to the
 * nearest gridpoint whose character satisfies `goal`, or undefined if none can be reached.
 */
export const firstStepToward = (
  lines: ReadonlyArray<string>,
  from: Position,
  goal: (ch: string) => boolean
): string | undefined => {
  const cols = lines[0]!.length
  const charAt = (cell: number) => lines[Math.floor(cell / cols)]![cell % cols]!
  return firstStepOnGrid(lines.length, cols, from.row * cols + from.col, (cell) => canStepOn(charAt(cell)), (cell) =>
    goal(charAt(cell)))
}
