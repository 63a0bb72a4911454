import type { GameState, Transition, Viewer } from "../core/state.js"
import { Occupant, type Paint, paintView, patchView } from "../core/view.js"
import { blankDisplay, cellOffset, occupantChars } from "../protocol/display.js"

/**
 * Every viewer's DISPLAY datagram ("DISPLAY\n" + grid), kept and brought up to date by
 * each transition's change set: only the gridpoints the core says changed are rewritten.
 *
 * `advance(transition, { reuse: true })` patches the buffers in place: the caller promises
 * that nothing still reads the buffers it was given (say, a send the system has not
 * finished). Without it, a buffer is copied before its first change, so every buffer
 * handed out stays as it was.
 */
export class DisplayBuffers {
  private state: GameState
  private readonly players: Array<Uint8Array | undefined> = []
  private spectator: Uint8Array | undefined
  private readonly offsetOf: Int32Array
  /** The buffer being painted, and whether it may be written to as it is. */
  private target: Uint8Array = new Uint8Array(0)
  private writable = false

  constructor(state: GameState) {
    this.state = state
    const { cols, rows } = state.map
    this.offsetOf = new Int32Array(rows * cols)
    for (let cell = 0; cell < rows * cols; cell++) this.offsetOf[cell] = cellOffset(cell, cols)
  }

  /** The DISPLAY datagram for `viewer` in the current state. */
  display(viewer: Viewer): Uint8Array {
    if (viewer === "spectator") return this.spectator ??= this.render(viewer)
    return this.players[viewer] ??= this.render(viewer)
  }

  /**
   * Moves on to the transition's state, which must follow the current one in the same game.
   * Only the buffers of the viewers it sends a DISPLAY are patched: the core sends one to
   * every viewer whose view changed (`displayWhereChanged`), so every other buffer is right
   * as it is, and a key costs the few views it changed rather than all 27.
   */
  advance(transition: Transition, options: { readonly reuse?: boolean } = {}): void {
    const { changes, notices, state } = transition
    this.state = state
    for (const index of changes.left) this.players[index] = undefined
    // With no spectator no DISPLAY keeps its buffer up to date; the next one starts afresh.
    if (state.spectator === undefined) this.spectator = undefined
    if (changes.cells.length === 0) return
    const reuse = options.reuse === true
    for (const { notice, viewer } of notices) {
      if (notice._tag !== "Display") continue
      if (viewer === "spectator") {
        if (this.spectator !== undefined) this.spectator = this.patch(this.spectator, viewer, transition, reuse)
      } else {
        const buffer = this.players[viewer]
        if (buffer !== undefined) this.players[viewer] = this.patch(buffer, viewer, transition, reuse)
      }
    }
  }

  private patch(buffer: Uint8Array, viewer: Viewer, transition: Transition, reuse: boolean): Uint8Array {
    this.target = buffer
    this.writable = reuse
    patchView(transition.state, viewer, transition.changes, this.paint)
    return this.target
  }

  private render(viewer: Viewer): Uint8Array {
    const { cols, rows } = this.state.map
    this.target = blankDisplay(rows, cols)
    this.writable = true
    paintView(this.state, viewer, this.paint)
    return this.target
  }

  private readonly paint: Paint = (cell, terrain, occupant) => {
    if (!this.writable) {
      this.target = this.target.slice()
      this.writable = true
    }
    this.target[this.offsetOf[cell]!] = occupant === Occupant.None ? terrain : occupantChars[occupant]!
  }
}
