/**
 * Writes a large map of rooms in a lattice, each joined to its right and lower
 * neighbours by bending passages, some rooms with a pillar inside. Deterministic for
 * a seed. Usage: tsx scripts/generate-map.ts ROWS COLS SEED > maps/large.txt
 */
import { Effect, Random } from "effect"

const [rows, cols, seed] = process.argv.slice(2).map(Number) as [number, number, number]
const bandHeight = 20
const bandWidth = 40
const margin = 3

const program = Effect.gen(function*() {
  const between = (low: number, high: number) => Random.nextIntBetween(low, high + 1)
  const grid = Array.from({ length: rows }, () => Array<string>(cols).fill(" "))
  const put = (row: number, col: number, ch: string) => {
    grid[row]![col] = ch
  }
  const bandRows = Math.floor(rows / bandHeight)
  const bandCols = Math.floor(cols / bandWidth)
  type Room = { top: number; left: number; bottom: number; right: number }
  const rooms: Array<Array<Room>> = []
  for (let i = 0; i < bandRows; i++) {
    rooms.push([])
    for (let j = 0; j < bandCols; j++) {
      const height = yield* between(7, bandHeight - 2 * margin)
      const width = yield* between(14, bandWidth - 2 * margin)
      const top = i * bandHeight + margin + (yield* between(0, bandHeight - 2 * margin - height))
      const left = j * bandWidth + margin + (yield* between(0, bandWidth - 2 * margin - width))
      const room = { top, left, bottom: top + height - 1, right: left + width - 1 }
      rooms[i]!.push(room)
      for (let r = room.top; r <= room.bottom; r++) {
        for (let c = room.left; c <= room.right; c++) {
          const edgeRow = r === room.top || r === room.bottom
          const edgeCol = c === room.left || c === room.right
          put(r, c, edgeRow && edgeCol ? "+" : edgeRow ? "-" : edgeCol ? "|" : ".")
        }
      }
      // A pillar: a walled block of rock inside the room, which sight cannot cross.
      if (width >= 20 && height >= 9 && (yield* between(0, 2)) === 0) {
        const pTop = room.top + 3
        const pLeft = room.left + 4
        const pBottom = pTop + (yield* between(2, height - 7))
        const pRight = pLeft + (yield* between(2, width - 10))
        for (let r = pTop; r <= pBottom; r++) {
          for (let c = pLeft; c <= pRight; c++) {
            const edgeRow = r === pTop || r === pBottom
            const edgeCol = c === pLeft || c === pRight
            put(r, c, edgeRow && edgeCol ? "+" : edgeRow ? "-" : edgeCol ? "|" : " ")
          }
        }
      }
    }
  }
  const passage = (fromRow: number, fromCol: number, toRow: number, toCol: number) => {
    for (let r = Math.min(fromRow, toRow); r <= Math.max(fromRow, toRow); r++) put(r, fromCol, "#")
    for (let c = Math.min(fromCol, toCol); c <= Math.max(fromCol, toCol); c++) put(toRow, c, "#")
  }
  for (let i = 0; i < bandRows; i++) {
    for (let j = 0; j < bandCols; j++) {
      const room = rooms[i]![j]!
      const right = rooms[i]![j + 1]
      if (right) {
        // Door rows avoid the pillar rows by using the top interior row or the bottom one.
        const doorA = (yield* between(0, 1)) === 0 ? room.top + 1 : room.bottom - 1
        const doorB = (yield* between(0, 1)) === 0 ? right.top + 1 : right.bottom - 1
        const turn = (j + 1) * bandWidth
        put(doorA, room.right, "#")
        put(doorB, right.left, "#")
        passage(doorA, room.right + 1, doorA, turn)
        passage(doorA, turn, doorB, turn)
        passage(doorB, turn, doorB, right.left - 1)
      }
      const below = rooms[i + 1]?.[j]
      if (below) {
        const doorA = (yield* between(0, 1)) === 0 ? room.left + 1 : room.right - 1
        const doorB = (yield* between(0, 1)) === 0 ? below.left + 1 : below.right - 1
        const turn = (i + 1) * bandHeight
        put(room.bottom, doorA, "#")
        put(below.top, doorB, "#")
        for (let r = room.bottom + 1; r <= turn; r++) put(r, doorA, "#")
        for (let c = Math.min(doorA, doorB); c <= Math.max(doorA, doorB); c++) put(turn, c, "#")
        for (let r = turn; r < below.top; r++) put(r, doorB, "#")
      }
    }
  }
  return grid.map((line) => line.join("")).join("\n") + "\n"
})

process.stdout.write(Effect.runSync(Effect.withRandom(program, Random.make(seed))))
