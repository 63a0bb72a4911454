import type { ChangeSet, GameState, Player, Viewer } from "./state.js"
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

/**
 * Who or what stands on each of `changes.cells` in `state`, in their order: the same for
 * every viewer a transition is painted for, so worked out once per transition rather than
 * once per viewer (each a walk over all the players).
 */
const changedOccupants = (state: GameState, changes: ChangeSet): ReadonlyArray<number> => {
  if (lastOccupants.state !== state || lastOccupants.changes !== changes) {
    lastOccupants = { state, changes, occupants: changes.cells.map((cell) => occupantAt(state, cell)) }
  }
  return lastOccupants.occupants
}

/** Paints each gridpoint the transition changed (within `visible`, when given) with what stands there now. */
const paintChanged = (state: GameState, changes: ChangeSet, paint: Paint, visible?: ArrayLike<number>): void => {
  const cells = state.map.cells
  const occupants = changedOccupants(state, changes)
  changes.cells.forEach((cell, i) => {
    if (visible === undefined || contains(visible, cell)) paint(cell, cells[cell]!, occupants[i]!)
  })
}

/**
 * The latest transition's: its viewers are painted one after another. (A WeakMap by change
 * set cost more in the garbage collector's time than the walks it saved.)
 */
let lastOccupants: { readonly state?: GameState; readonly changes?: ChangeSet; readonly occupants: ReadonlyArray<number> } = { occupants: [] }

/** Whether `cell` is in the sorted set `visible`. */
const contains = (visible: ArrayLike<number>, cell: number): boolean => {
  let low = 0
  let high = visible.length - 1
  // Most lookups are of someone out of sight, often rows away: answered without a search.
  if (high < 0 || cell < visible[0]! || cell > visible[high]!) return false
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
 * Whether `changes` may have changed what `viewer` sees (`state` is the state after them):
 * exactly when `patchView` paints something. A player who walked or arrived always; the
 * spectator when any gridpoint changed; anyone else when a changed gridpoint is within
 * its sight (what it remembers changes only as it walks). A few binary searches, no paint.
 */
export const viewChanged = (state: GameState, viewer: Viewer, changes: ChangeSet): boolean => {
  if (viewer === "spectator") return changes.cells.length > 0
  if (changes.joined.includes(viewer)) return true
  for (const walk of changes.walks) if (walk.player === viewer) return true
  const visible = state.sight.visibleFrom(state.players[viewer]!.position)
  for (const cell of changes.cells) if (contains(visible, cell)) return true
  return false
}

/**
 * `viewChanged` for each active player, in letter order: `each` is called for those whose
 * view changed. The same answer, found with less memory read on every key: sight between
 * two spots is symmetric (`isVisible` walks the same segment either way), and every changed
 * gridpoint is a spot (players and gold stand on spots), so a player sees a changed
 * gridpoint exactly when the gridpoint sees the player. The changed gridpoints' few sight
 * sets are searched, rather than the sight set of every player.
 */
export const forEachChangedView = (state: GameState, changes: ChangeSet, each: (player: Player) => void): void => {
  const cells = changes.cells
  if (cells.length === 0) return
  const seenFrom = cells.map((cell) => state.sight.visibleFrom(cell))
  for (const player of state.players) {
    if (!player.active) continue
    let changed = changes.joined.includes(player.index)
    for (let i = 0; !changed && i < changes.walks.length; i++) changed = changes.walks[i]!.player === player.index
    for (let i = 0; !changed && i < seenFrom.length; i++) changed = contains(seenFrom[i]!, player.position)
    if (changed) each(player)
  }
}

/**
 * Paints the gridpoints of `viewer`'s view that `changes` changed, given that the view was
 * up to date before them. A player who walked sees what it saw on the way fade to memory
 * and its new surroundings appear; anyone else sees the changed gridpoints within sight.
 * Paints nothing where `viewChanged` says no.
 */
export const patchView = (state: GameState, viewer: Viewer, changes: ChangeSet, paint: Paint): void => {
  const cells = state.map.cells
  if (viewer === "spectator") {
    return paintChanged(state, changes, paint)
  }
  if (changes.joined.includes(viewer)) return paintView(state, viewer, paint)
  const player = state.players[viewer]!
  const walk = changes.walks.find((each) => each.player === viewer)
  if (walk === undefined) {
    return paintChanged(state, changes, paint, state.sight.visibleFrom(player.position))
  }
  const path = walk.path
  const visibleNow = state.sight.visibleFrom(player.position)
  const marks = marksFor(state)
  // On a run, what it saw on the way and sees no more: remembered now.
  if (path.length > 2) {
    marks.mark(visibleNow)
    for (let step = 1; step < path.length - 1; step++) {
      const visibleThen = state.sight.visibleFrom(path[step]!)
      for (let i = 0; i < visibleThen.length; i++) {
        const cell = visibleThen[i]!
        if (!marks.has(cell)) paint(cell, cells[cell]!, Occupant.None)
      }
    }
  }
  // From where it stood to where it stands: what left its sight fades to memory, what came
  // into it appears, and what it saw from both is as it was, unless its occupant changed.
  // A step within a room repaints a few gridpoints, not the room.
  const { lost, gained } = state.sight.changeBetween(path[0]!, player.position)
  for (let i = 0; i < lost.length; i++) paint(lost[i]!, cells[lost[i]!]!, Occupant.None)
  for (let i = 0; i < gained.length; i++) paint(gained[i]!, cells[gained[i]!]!, Occupant.None)
  if (gained.length > 0) {
    marks.mark(gained)
    for (const [cell] of state.gold) if (marks.has(cell)) paint(cell, cells[cell]!, Occupant.Gold)
    for (const other of state.players) {
      if (other.active && other.index !== viewer && marks.has(other.position)) {
        paint(other.position, cells[other.position]!, playerOccupant(other.index))
      }
    }
  }
  paintChanged(state, changes, paint, visibleNow)
  paint(player.position, cells[player.position]!, Occupant.Self)
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

  /** A new, empty set. */
  start(): this {
    if (++this.generation === 0xffffffff) {
      this.stamp.fill(0)
      this.generation = 1
    }
    return this
  }

  add(cell: number): void {
    this.stamp[cell] = this.generation
  }

  /** A new set of `cells`. */
  mark(cells: ArrayLike<number>): this {
    this.start()
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
