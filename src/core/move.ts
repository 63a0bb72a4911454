import { displayFor, displayWhereChanged } from "./displays.js"
import { isSpot, type Offset, stepFrom } from "./map.js"
import {
  audience,
  type ChangeSet,
  changedState,
  type Envelope,
  type GameState,
  gameOverAll,
  movedPlayer,
  noChanges,
  playerOn,
  type Theft,
  type Transition,
  type Viewer,
  type Walk,
  withKnown
} from "./state.js"

// A move's rules: a step or a run, gold picked up, players swapped (and robbed, in the `steal` variant).

/** The share of a victim's purse a thief takes in the `steal` variant: 10%, rounded down. */
export const stolenFrom = (purse: number): number => Math.floor(purse / 10)

/** A player's move one step in `direction`, or, with `repeat`, as far as it can go that way. */
export const move = (
  state: GameState,
  moverIndex: number,
  direction: Offset,
  repeat: boolean
): Transition => {
  const { map, sight } = state
  const steal = state.rules.variant === "steal"
  const players = state.players.slice()
  let gold: Map<number, number> | undefined
  let collected = 0
  const path = [players[moverIndex]!.position]
  // The mover's walk first: `path` grows as it goes.
  const walks: Array<Walk> = [{ player: moverIndex, path }]
  const cells = [path[0]!]
  const thefts: Array<Theft> = []
  for (;;) {
    const mover = players[moverIndex]!
    const target = stepFrom(map.rows, map.cols, mover.position, direction)
    if (target < 0 || !isSpot(map.cells[target]!)) break
    let purse = mover.purse
    const other = playerOn(players, target)
    if (other) {
      const taken = steal ? stolenFrom(other.purse) : 0
      if (taken > 0) {
        thefts.push({ thief: moverIndex, victim: other.index, nuggets: taken })
        purse += taken
      }
      players[other.index] = movedPlayer(other, mover.position, other.purse - taken, withKnown(other.known, sight.changeBetween(target, mover.position).gained))
      walks.push({ player: other.index, path: [target, mover.position] })
    }
    const pile = (gold ?? state.gold).get(target) ?? 0
    if (pile > 0) {
      gold ??= new Map(state.gold)
      gold.delete(target)
      collected += pile
    }
    // What a player has seen already holds all it saw from where it stood: only what comes
    // into sight with the step can be new to it (so too for the one swapped, above).
    players[moverIndex] = movedPlayer(mover, target, purse + pile, withKnown(mover.known, sight.changeBetween(mover.position, target).gained))
    path.push(target)
    // The path's ends are where the mover left and arrived; between them, only where gold
    // was taken or a swapped player landed did an occupant change.
    if (pile > 0) cells.push(target)
    if (other) cells.push(target, players[other.index]!.position)
    if (!repeat) break
  }
  if (path.length === 1) return { state, notices: [displayFor(state.players[moverIndex]!)], changes: noChanges }
  cells.push(path[path.length - 1]!)
  const goldRemaining = state.goldRemaining - collected
  const over = collected > 0 && goldRemaining === 0
  const next = changedState(state, { players, gold: gold ?? state.gold, goldRemaining, over })
  const changes: ChangeSet = { cells, walks, joined: [], left: [], thefts }
  // The mover walked, so it is sent a DISPLAY: every key of a player is answered.
  const notices = displayWhereChanged(next, changes, goldNotices(state, next, moverIndex, collected, thefts))
  if (next.over) gameOverAll(next, notices)
  return { state: next, notices, changes }
}

/**
 * GOLD after a move: to everyone when nuggets left the map (the count of nuggets left
 * changed); otherwise only to the thief and its victims, whose purses changed.
 */
const goldNotices = (
  before: GameState,
  state: GameState,
  moverIndex: number,
  collected: number,
  thefts: ReadonlyArray<Theft>
): Array<Envelope> => {
  if (collected === 0 && thefts.length === 0) return []
  const mover = state.players[moverIndex]!
  const gained = mover.purse - before.players[moverIndex]!.purse
  const told = collected > 0
    ? audience(state)
    : [moverIndex, ...thefts.map((theft) => theft.victim)].map((index) => ({
      to: state.players[index]!.client,
      viewer: index as Viewer
    }))
  return told.map(({ to, viewer }) => ({
    to,
    viewer,
    notice: {
      _tag: "Gold",
      collected: viewer === moverIndex ? gained : 0,
      purse: viewer === "spectator" ? 0 : state.players[viewer]!.purse,
      remaining: state.goldRemaining
    }
  }))
}
