import { DisplayHeaderLength, PlayerLetters } from "./constants.js"
import type { GameState, Viewer } from "./game.js"
import { Rock } from "./map.js"

const Self = 0x40 // '@'
const Gold = 0x2a // '*'
const Letter = 0x41 // 'A'
const Newline = 0x0a
const header = Uint8Array.from("DISPLAY\n", (ch) => ch.charCodeAt(0))

/** Occupant codes kept per gridpoint: none, a player (index + 1) or gold. */
const NoOccupant = 0
const GoldOccupant = 255

const occupantIn = (state: GameState, cell: number): number => {
  for (const player of state.players) if (player.active && player.position === cell) return player.index + 1
  return state.gold.has(cell) ? GoldOccupant : NoOccupant
}

const occupantChar = (occupant: number, mapChar: number) =>
  occupant === NoOccupant ? mapChar : occupant === GoldOccupant ? Gold : Letter + occupant - 1

const blankDisplay = (rows: number, cols: number): Uint8Array => {
  const bytes = new Uint8Array(DisplayHeaderLength + rows * (cols + 1)).fill(Rock)
  bytes.set(header)
  for (let row = 1; row <= rows; row++) bytes[DisplayHeaderLength + row * (cols + 1) - 1] = Newline
  return bytes
}

/**
 * Keeps every viewer's DISPLAY datagram ("DISPLAY\n" + grid) and brings them up to date
 * with each new state by patching only the gridpoints that changed: the cells where
 * players left or arrived, gold taken, and a mover's old and new fields of view.
 *
 * `advance(next, { reuse: true })` patches the buffers in place: the caller promises that
 * nothing still reads the buffers it was given (say, a send the system has not finished).
 * Without it, a changed buffer is copied first, so every buffer handed out stays as it was.
 */
export class Views {
  private state: GameState
  private readonly occupant: Uint8Array
  private readonly players: Array<Uint8Array | undefined> = []
  private spectator: Uint8Array | undefined
  private readonly stamp: Uint32Array
  private generation = 0
  private readonly offsetOf: Int32Array
  private readonly changed: Array<number> = []
  private reuse = false

  constructor(state: GameState) {
    this.state = state
    const { rows, cols } = state.map
    this.occupant = new Uint8Array(rows * cols)
    this.stamp = new Uint32Array(rows * cols)
    this.offsetOf = new Int32Array(rows * cols)
    for (let cell = 0; cell < rows * cols; cell++) {
      this.offsetOf[cell] = DisplayHeaderLength + cell + Math.floor(cell / cols)
      this.occupant[cell] = occupantIn(state, cell)
    }
  }

  /** The DISPLAY datagram for `viewer` in the current state. */
  display(viewer: Viewer): Uint8Array {
    if (viewer === "spectator") return this.spectator ??= this.renderSpectator()
    return this.players[viewer] ??= this.renderPlayer(viewer)
  }

  /** Moves on to `next`, which must follow the current state in the same game. */
  advance(next: GameState, options: { readonly reuse?: boolean } = {}): void {
    const prev = this.state
    this.state = next
    this.reuse = options.reuse === true
    const changed = this.changedCells(prev, next)
    for (const cell of changed) this.occupant[cell] = occupantIn(next, cell)

    for (const player of next.players) {
      const before = prev.players[player.index]
      const buffer = this.players[player.index]
      if (!player.active) {
        this.players[player.index] = undefined
      } else if (buffer === undefined || before === undefined) {
        // Rendered on first request.
      } else if (before.position !== player.position) {
        this.players[player.index] = this.patchMover(buffer, player.index, before.position)
      } else if (changed.length > 0) {
        this.players[player.index] = this.patchCells(buffer, changed, player.position)
      }
    }
    if (next.spectator !== prev.spectator) this.spectator = undefined
    else if (this.spectator && changed.length > 0) this.spectator = this.patchCells(this.spectator, changed, -1)
  }

  private changedCells(prev: GameState, next: GameState): ReadonlyArray<number> {
    const changed = this.changed
    changed.length = 0
    for (const player of next.players) {
      const before = prev.players[player.index]
      if (before === player) continue
      const wasThere = before !== undefined && before.active
      const moved = !wasThere || !player.active || before.position !== player.position
      if (!moved) continue
      if (wasThere) changed.push(before.position)
      if (player.active) changed.push(player.position)
    }
    if (prev.gold !== next.gold) for (const cell of prev.gold.keys()) if (!next.gold.has(cell)) changed.push(cell)
    return changed
  }

  private writable(buffer: Uint8Array): Uint8Array {
    return this.reuse ? buffer : buffer.slice()
  }

  /** A viewer at `from` (-1: the spectator, who sees everything) redraws the changed cells it can see. */
  private patchCells(buffer: Uint8Array, changed: ReadonlyArray<number>, from: number): Uint8Array {
    const { map, sight } = this.state
    let out: Uint8Array | undefined
    for (const cell of changed) {
      if (from !== -1 && !sight.isVisible(from, cell)) continue
      out ??= this.writable(buffer)
      out[this.offsetOf[cell]!] = occupantChar(this.occupant[cell]!, map.cells[cell]!)
    }
    return out ?? buffer
  }

  /**
   * A player who walked in a straight line from `from` (one step, a run, or a swap): what
   * it saw on the way fades to memory, what it sees now appears.
   */
  private patchMover(buffer: Uint8Array, index: number, from: number): Uint8Array {
    const { map, sight } = this.state
    const to = this.state.players[index]!.position
    const cols = map.cols
    const dRow = Math.floor(to / cols) - Math.floor(from / cols)
    const dCol = (to % cols) - (from % cols)
    const steps = Math.max(Math.abs(dRow), Math.abs(dCol))
    if (dRow !== 0 && dCol !== 0 && Math.abs(dRow) !== Math.abs(dCol)) {
      return this.renderPlayer(index)
    }
    const out = this.writable(buffer)
    const seen = this.nextGeneration()
    const visibleNow = sight.visibleFrom(to)
    for (let i = 0; i < visibleNow.length; i++) this.stamp[visibleNow[i]!] = seen
    const step = Math.sign(dRow) * cols + Math.sign(dCol)
    for (let k = 0, at = from; k < steps; k++, at += step) {
      const visibleThere = sight.visibleFrom(at)
      for (let i = 0; i < visibleThere.length; i++) {
        const cell = visibleThere[i]!
        if (this.stamp[cell] !== seen) out[this.offsetOf[cell]!] = map.cells[cell]!
      }
    }
    this.drawVisible(out, visibleNow)
    out[this.offsetOf[to]!] = Self
    return out
  }

  private renderPlayer(index: number): Uint8Array {
    const { map, sight, players } = this.state
    const player = players[index]!
    const out = blankDisplay(map.rows, map.cols)
    for (let cell = 0; cell < map.cells.length; cell++) {
      if (player.known[cell] === 1) out[this.offsetOf[cell]!] = map.cells[cell]!
    }
    this.drawVisible(out, sight.visibleFrom(player.position))
    out[this.offsetOf[player.position]!] = Self
    return out
  }

  private renderSpectator(): Uint8Array {
    const { map } = this.state
    const out = blankDisplay(map.rows, map.cols)
    for (let cell = 0; cell < map.cells.length; cell++) {
      out[this.offsetOf[cell]!] = occupantChar(this.occupant[cell]!, map.cells[cell]!)
    }
    return out
  }

  private drawVisible(out: Uint8Array, visible: ArrayLike<number>): void {
    const cells = this.state.map.cells
    for (let i = 0; i < visible.length; i++) {
      const cell = visible[i]!
      out[this.offsetOf[cell]!] = occupantChar(this.occupant[cell]!, cells[cell]!)
    }
  }

  private nextGeneration(): number {
    if (++this.generation === 0xffffffff) {
      this.stamp.fill(0)
      this.generation = 1
    }
    return this.generation
  }
}

/**
 * What `viewer` sees, rendered from scratch: the reference that `Views` must agree with.
 * Returns the grid only (NR lines of NC chars, each ending in a newline).
 */
export const renderView = (state: GameState, viewer: Viewer): string => {
  const { map, sight } = state
  const player = viewer === "spectator" ? undefined : state.players[viewer]
  let out = ""
  for (let row = 0; row < map.rows; row++) {
    for (let col = 0; col < map.cols; col++) {
      const cell = row * map.cols + col
      const mapChar = map.cells[cell]!
      let ch = Rock
      if (player === undefined) ch = occupantChar(occupantIn(state, cell), mapChar)
      else if (cell === player.position) ch = Self
      else if (sight.isVisible(player.position, cell)) ch = occupantChar(occupantIn(state, cell), mapChar)
      else if (player.known[cell] === 1) ch = mapChar
      out += String.fromCharCode(ch)
    }
    out += "\n"
  }
  return out
}

/** The game-over summary: one line per player who ever joined, as a table. */
export const gameOverSummary = (state: GameState): string => {
  const width = Math.max(5, ...state.players.map((player) => String(player.purse).length))
  const lines = state.players.map((player) =>
    `${PlayerLetters[player.index]} ${String(player.purse).padStart(width)} ${player.name}`
  )
  return lines.map((line) => line + "\n").join("")
}
