import { MoveDirections, MoveKeys } from "./constants.js"
import { stepFrom } from "./map.js"

/**
 * The key for the first step of a shortest walk on a row-major grid from `from` over
 * `passable` cells to the nearest cell where `goal` holds, or undefined if none is reachable.
 * The bots walk by it, and so does `check server`.
 */
export const firstStepOnGrid = (
  rows: number,
  cols: number,
  from: number,
  passable: (cell: number) => boolean,
  goal: (cell: number) => boolean
): string | undefined => {
  const size = rows * cols
  // 0: not reached yet; otherwise 1 + the index in `MoveKeys` of the walk's first step.
  const firstMove = new Uint8Array(size)
  const queue = new Int32Array(size)
  let tail = 0
  queue[tail++] = from
  firstMove[from] = 255
  for (let head = 0; head < tail; head++) {
    const here = queue[head]!
    for (let m = 0; m < MoveKeys.length; m++) {
      const next = stepFrom(rows, cols, here, MoveDirections[MoveKeys[m]!]!)
      if (next < 0 || firstMove[next] !== 0 || !passable(next)) continue
      const first = here === from ? m + 1 : firstMove[here]!
      if (goal(next)) return MoveKeys[first - 1]
      firstMove[next] = first
      queue[tail++] = next
    }
  }
  return undefined
}
