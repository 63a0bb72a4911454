import { browserArrow } from "../../client/keymap.js"
import { fastest, longestGap, slowest } from "../../recording/pace.js"
import type { ReplayHello, Snapshot } from "../feed.js"
import { byId } from "./dom.js"

/**
 * A recording in the page: every move came at once; the page plays them at the recorded
 * pace (gaps capped, as in the terminal), with pause, speed, step and seek.
 */

const pauseButton = byId<HTMLButtonElement>("pause")
const speedSelect = byId<HTMLSelectElement>("speed")
const seekInput = byId<HTMLInputElement>("seek")
const where = byId("where")

/** The speeds offered: `slowest` to `fastest`, doubling. */
const speeds: ReadonlyArray<number> = Array.from({ length: Math.log2(fastest / slowest) + 1 }, (_, i) => slowest * 2 ** i)

interface Move {
  readonly t: number
  readonly move: number
  readonly snapshot: Snapshot
}

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000)
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`
}

const speedLabel = (speed: number) => (speed < 1 ? `x1/${1 / speed}` : `x${speed}`)

export class ReplayPlayback {
  private readonly moves: ReadonlyArray<Move>
  private index = 0
  private playing: boolean
  private speed = 1
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly hello: ReplayHello, private readonly show: (snapshot: Snapshot) => void) {
    let gold: ReadonlyArray<number> = []
    let purses: ReadonlyArray<number> = []
    let remaining = 0
    this.moves = hello.steps.map((step) => {
      gold = step.g ?? gold
      purses = step.$ ?? purses
      remaining = step.r ?? remaining
      const players = step.p.map((cell, i) => ({ ...hello.names[i]!, purse: purses[i] ?? 0, cell }))
      return { t: step.t, move: step.m, snapshot: { players, gold, remaining, ...(step.end ? { end: step.end } : {}) } }
    })
    this.playing = this.moves.length > 1
    speedSelect.textContent = ""
    for (const speed of speeds) speedSelect.add(new Option(speedLabel(speed), String(speed), speed === 1, speed === 1))
    seekInput.max = String(Math.max(0, this.moves.length - 1))
    // Each control gives the keyboard back at once: space, + and the arrows then work as keys again.
    pauseButton.addEventListener("click", () => {
      pauseButton.blur()
      this.togglePause()
    })
    speedSelect.addEventListener("change", () => {
      speedSelect.blur()
      this.setSpeed(Number(speedSelect.value))
    })
    seekInput.addEventListener("input", () => {
      this.index = Number(seekInput.value)
      this.schedule()
    })
  }

  get empty(): boolean {
    return this.moves.length === 0
  }

  start(): void {
    if (!this.empty) this.schedule()
  }

  /** A key in replay mode; whether the page took it. */
  key(pressed: string): boolean {
    if (this.empty) return false
    const key = browserArrow(pressed) ?? pressed
    const at = speeds.indexOf(this.speed)
    if (key === " " || key === "p") this.togglePause()
    else if (key === "+" || key === "=") this.setSpeed(speeds[Math.min(speeds.length - 1, at + 1)]!)
    else if (key === "-") this.setSpeed(speeds[Math.max(0, at - 1)]!)
    else if (key === "l") this.step(1)
    else if (key === "h") this.step(-1)
    else return false
    return true
  }

  private showMove(): void {
    const move = this.moves[this.index]!
    this.show(move.snapshot)
    seekInput.value = String(this.index)
    const speed = this.speed === 1 ? "" : ` ${speedLabel(this.speed)}`
    where.textContent = `[move ${move.move}/${this.hello.moves} ${clock(move.t)}${speed}${this.playing ? "" : " paused"}]`
    pauseButton.textContent = this.playing ? "Pause" : "Play"
  }

  private schedule(): void {
    clearTimeout(this.timer)
    const i = this.index
    if (i >= this.moves.length - 1) this.playing = false
    this.showMove()
    if (!this.playing) return
    const gap = Math.min(longestGap, Math.max(0, this.moves[i + 1]!.t - this.moves[i]!.t)) / this.speed
    this.timer = setTimeout(() => {
      this.index = i + 1
      this.schedule()
    }, gap)
  }

  private togglePause(): void {
    this.playing = !this.playing
    if (this.playing && this.index >= this.moves.length - 1) this.index = 0
    this.schedule()
  }

  private setSpeed(speed: number): void {
    this.speed = speed
    speedSelect.value = String(speed)
    this.schedule()
  }

  private step(by: number): void {
    this.playing = false
    this.index = Math.max(0, Math.min(this.moves.length - 1, this.index + by))
    this.schedule()
  }
}
