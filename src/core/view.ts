import type { ChangeSet, GameState, Viewer } from "./state.js"
import { Rock } from "./map.js"
import type { Sight } from "./visibility.js"

/**
 * What one viewer sees, as data: per gridpoint, the map character it knows there and who
 * or what it sees standing there. A terminal, a browser page or the protocol's DISPLAY
 * text are all drawn from this.
 */
export interface View {
  readonly rows: number
  readonly cols: number
  /** The map character the viewer knows at each gridpoint; solid rock where it knows nothing. */
  readonly terrain: Uint8Array
  /** Who or what the viewer sees at each gridpoint: one of the `Occupant` codes. */
  readonly occupants: Uint8Array
}

/** Occupant codes. A player with index i (letter A + i) is `i + 1`. */
export const Occupant = {
  None: 0,
  Gold: 254,
  /** The viewer itself, in a player's view. */
  Self: 255
} as const

export const playerOccupant = (index: number): number => index + 1

/**
 * Receives the new content of a gridpoint. A gridpoint may be painted more than once in
 * one call of `paintView` or `patchView`: the last paint wins.
 */
export type Paint = (cell: number, terrain: number, occupant: number) => void

/** Who or what stands on `cell`, as everyone would see it. */
export const occupantAt = (state: GameState, cell: number): number => {
  for (const player of state.players) if (player.active && player.position === cell) return playerOccupant(player.index)
  return state.gold.has(cell) ? Occupant.Gold : Occupant.None
}

/** Whether `cell` is in the sorted set `visible`. */
const contains = (visible: ArrayLike<number>, cell: number): boolean => {
  let low = 0
  let high = visible.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const at = visible[middle]!
    if (at === cell) return true
    if (at < cell) low = middle + 1
    else high = middle - 1
  }
  return false
}

/** What stands on the map, as a view is painted from it: a game state is one. */
export interface Occupants {
  /** The piles, by gridpoint (a game's nuggets per pile, or just the gridpoints). */
  readonly gold: { readonly keys: () => Iterable<number> }
  readonly players: ReadonlyArray<{ readonly index: number; readonly position: number; readonly active: boolean }>
}

/** Paints the occupants (players, gold) that stand within `visible`, or everywhere without it. */
const paintOccupants = (cells: Uint8Array, occupants: Occupants, paint: Paint, self: number, visible?: ArrayLike<number>) => {
  for (const cell of occupants.gold.keys()) {
    if (visible === undefined || contains(visible, cell)) paint(cell, cells[cell]!, Occupant.Gold)
  }
  for (const player of occupants.players) {
    if (!player.active || player.index === self) continue
    if (visible === undefined || contains(visible, player.position)) {
      paint(player.position, cells[player.position]!, playerOccupant(player.index))
    }
  }
}

/** A player's surroundings as it stands at `position`: the visible spots, their occupants, itself. */
const paintSurroundings = (sight: Sight, occupants: Occupants, index: number, position: number, paint: Paint) => {
  const cells = sight.map.cells
  const visible = sight.visibleFrom(position)
  for (let i = 0; i < visible.length; i++) paint(visible[i]!, cells[visible[i]!]!, Occupant.None)
  paintOccupants(cells, occupants, paint, index, visible)
  paint(position, cells[position]!, Occupant.Self)
}

/** A player's whole view: what it knows, then what it sees. */
const paintPlayerView = (sight: Sight, occupants: Occupants, viewer: { readonly index: number; readonly position: number; readonly known: Uint8Array }, paint: Paint) => {
  const cells = sight.map.cells
  for (let cell = 0; cell < cells.length; cell++) {
    paint(cell, viewer.known[cell] === 1 ? cells[cell]! : Rock, Occupant.None)
  }
  paintSurroundings(sight, occupants, viewer.index, viewer.position, paint)
}

/** Paints every gridpoint of `viewer`'s view. */
export const paintView = (state: GameState, viewer: Viewer, paint: Paint): void => {
  const cells = state.map.cells
  if (viewer === "spectator") {
    for (let cell = 0; cell < cells.length; cell++) paint(cell, cells[cell]!, Occupant.None)
    paintOccupants(cells, state, paint, -1)
    return
  }
  paintPlayerView(state.sight, state, state.players[viewer]!, paint)
}

/**
 * Paints the gridpoints of `viewer`'s view that `changes` changed, given that the view was
 * up to date before them. A player who walked sees what it saw on the way fade to memory
 * and its new surroundings appear; anyone else sees the changed gridpoints within sight.
 */
export const patchView = (state: GameState, viewer: Viewer, changes: ChangeSet, paint: Paint): void => {
  const cells = state.map.cells
  if (viewer === "spectator") {
    for (const cell of changes.cells) paint(cell, cells[cell]!, occupantAt(state, cell))
    return
  }
  if (changes.joined.includes(viewer)) return paintView(state, viewer, paint)
  const player = state.players[viewer]!
  const walk = changes.walks.find((each) => each.player === viewer)
  if (walk === undefined) {
    const visible = state.sight.visibleFrom(player.position)
    for (const cell of changes.cells) {
      if (contains(visible, cell)) paint(cell, cells[cell]!, occupantAt(state, cell))
    }
    return
  }
  const inSightNow = marksFor(state).mark(state.sight.visibleFrom(player.position))
  for (let step = 0; step < walk.path.length - 1; step++) {
    const visibleThen = state.sight.visibleFrom(walk.path[step]!)
    for (let i = 0; i < visibleThen.length; i++) {
      const cell = visibleThen[i]!
      if (!inSightNow.has(cell)) paint(cell, cells[cell]!, Occupant.None)
    }
  }
  paintSurroundings(state.sight, state, viewer, player.position, paint)
}

/**
 * A set of gridpoints with constant-time membership, reused from call to call: marking
 * starts a new generation instead of clearing. Only the latest marking is valid, so a
 * `Paint` must not call back into this module.
 */
class Marks {
  private readonly stamp: Uint32Array
  private generation = 0

  constructor(size: number) {
    this.stamp = new Uint32Array(size)
  }

  mark(cells: ArrayLike<number>): this {
    if (++this.generation === 0xffffffff) {
      this.stamp.fill(0)
      this.generation = 1
    }
    for (let i = 0; i < cells.length; i++) this.stamp[cells[i]!] = this.generation
    return this
  }

  has(cell: number): boolean {
    return this.stamp[cell] === this.generation
  }
}

const marksByMap = new WeakMap<GameState["map"], Marks>()
const marksFor = (state: GameState): Marks => {
  let marks = marksByMap.get(state.map)
  if (marks === undefined) marksByMap.set(state.map, marks = new Marks(state.map.cells.length))
  return marks
}

const paintInto = (view: View): Paint => (cell, terrain, occupant) => {
  ;(view.terrain as Uint8Array)[cell] = terrain
  ;(view.occupants as Uint8Array)[cell] = occupant
}

/** `viewer`'s view, worked out from scratch. */
export const viewOf = (state: GameState, viewer: Viewer): View => {
  const size = state.map.cells.length
  const view: View = {
    rows: state.map.rows,
    cols: state.map.cols,
    terrain: new Uint8Array(size),
    occupants: new Uint8Array(size)
  }
  paintView(state, viewer, paintInto(view))
  return view
}

/**
 * The view a player should be shown, from these alone: where it stands and the gridpoints it
 * has seen (`known`), by `sight`'s map and rule, among `occupants` (the other players, the
 * piles). For judging a DISPLAY that another server sent, where there is no game state.
 */
export const expectedPlayerView = (
  sight: Sight,
  viewer: { readonly index: number; readonly position: number; readonly known: Uint8Array },
  occupants: Occupants
): View => {
  const size = sight.map.cells.length
  const view: View = { rows: sight.map.rows, cols: sight.map.cols, terrain: new Uint8Array(size), occupants: new Uint8Array(size) }
  paintPlayerView(sight, occupants, viewer, paintInto(view))
  return view
}

/** `view` brought up to date with `changes`, as a new view: the one given is left as it was. */
export const updateView = (view: View, state: GameState, viewer: Viewer, changes: ChangeSet): View => {
  const next: View = { ...view, terrain: view.terrain.slice(), occupants: view.occupants.slice() }
  patchView(state, viewer, changes, paintInto(next))
  return next
}
