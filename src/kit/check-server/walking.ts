import { Effect } from "effect"
import { firstStepOnGrid } from "../../core/path.js"
import { MoveDirections } from "../../core/constants.js"
import type { UdpError } from "../../net/udp.js"
import { canStepOn } from "../../protocol/display.js"
import type { Position } from "../../protocol/reader.js"
import { type NotRun, notRun, stop, type Stop } from "../conformance/check.js"
import { escaped } from "../conformance/escaping.js"
import { Requirements } from "../conformance/requirements.js"
import type { Client } from "./client.js"
import type { ServerRecorder } from "./server-check.js"

/** Moving the checker's players about, by what the spectator sees: it sees the whole map. */

export const same = (a: Position | undefined, b: Position | undefined) =>
  a !== undefined && b !== undefined && a.row === b.row && a.col === b.col

export const where = (at: Position | undefined) => (at ? `row ${at.row} col ${at.col}` : "nowhere")

/**
 * Where `player` stands: its own DISPLAY's @, else the spectator's view of its letter. Not
 * run when neither shows it: that is for occupants-drawn to judge, not a move.
 */
export const placed = (context: ServerRecorder, player: Client): Effect.Effect<Position, NotRun> => {
  const at = context.clients.whereIs(player)
  return at !== undefined
    ? Effect.succeed(at)
    : notRun(`${player.who}'s own DISPLAY does not show it (no @), nor does the spectator's: the checker cannot tell where it stands (see occupants-drawn)`)
}

/** The letter the server gave `player`, which joined. */
export const letterOf = (player: Client): Effect.Effect<string, Stop> =>
  player.report.letter === undefined
    ? stop({ what: `${player.probe.label} of the checker has no letter`, spec: Requirements.ok })
    : Effect.succeed(player.report.letter)

const charAt = (view: ReadonlyArray<string>, at: Position) => view[at.row]?.[at.col] ?? " "

export interface Expected {
  /** Where the key should take the player; where it is when the key cannot move it. */
  readonly to: Position
  /** Also right: a run that stops before a player instead of swapping on through. */
  readonly orElse?: Position
  /** What the spectator shows where the first step leads. */
  readonly target: string
}

/** Where `key` takes a player standing at `from`, on the spectator's `view`. */
export const expectedMove = (view: ReadonlyArray<string>, from: Position, key: string): Expected => {
  const [dRow, dCol] = MoveDirections[key.toLowerCase()] ?? [0, 0]
  const step = (at: Position) => ({ row: at.row + dRow, col: at.col + dCol })
  const target = charAt(view, step(from))
  if (key === key.toLowerCase()) return { to: canStepOn(target) ? step(from) : from, target }
  let at = from
  let beforeAPlayer: Position | undefined
  while (canStepOn(charAt(view, step(at)))) {
    if (/[A-Z]/.test(charAt(view, step(at))) && beforeAPlayer === undefined) beforeAPlayer = at
    at = step(at)
  }
  return beforeAPlayer === undefined ? { to: at, target } : { to: at, orElse: beforeAPlayer, target }
}

/**
 * Presses `key` for `player` and checks where it ends, in its own DISPLAY and in the
 * spectator's. Returns whether it moved as the spec says.
 */
export const pressMove = (context: ServerRecorder, player: Client, key: string): Effect.Effect<boolean, Stop | NotRun | UdpError> =>
  Effect.gen(function*() {
    const { clients } = context
    const spectator = yield* clients.watch()
    const letter = yield* letterOf(player)
    const from = yield* placed(context, player)
    const view = spectator.report.view ?? []
    const expected = expectedMove(view, from, key)
    const sent = escaped(`KEY ${key}`)
    const isRight = (at: Position | undefined) => same(at, expected.to) || same(at, expected.orElse)
    player.probe.skipAll()
    spectator.probe.skipAll()
    yield* player.send(`KEY ${key}`)
    if (same(expected.to, from)) {
      yield* player.probe.gather(Math.min(300, context.answerMs))
      const now = clients.whereIs(player)
      if (now !== undefined && !same(now, from)) {
        context.fail({
          what: `KEY ${key} moved the player from ${where(from)} to ${where(now)}, though the spectator shows '${expected.target}' there: not an empty spot, gold or a player`,
          sent,
          got: player.probe.recent(1).join(""),
          spec: key === key.toLowerCase() ? Requirements.moveKeys : Requirements.runKeys
        })
        return false
      }
      return true
    }
    // The last nugget ends the game: a server may send GAMEOVER without a last DISPLAY, and to the others first.
    const over = () => player.report.ending !== undefined || clients.gameEnded
    const moved = yield* clients.settle(player, () => isRight(player.report.position) || over(), context.answerMs)
    // Its own DISPLAY may not show it (gold or another player drawn there): then the spectator's says where it went.
    const unshown = !moved && player.report.position === undefined && player.report.view !== undefined
    const seen = yield* clients.settle(spectator, () => isRight(clients.spectatorSees(letter)) || spectator.report.ending !== undefined || over(), context.answerMs)
    // Drawn nowhere, neither by its own DISPLAY nor the spectator's: where it went cannot be told; how it is drawn is occupants-drawn's.
    const nowhere = !moved && unshown && clients.spectatorSees(letter) === undefined && spectator.report.view !== undefined
    // Onto another player: whether the two changed places is swap's to judge.
    if (nowhere && /[A-Z]/.test(expected.target)) return true
    if (nowhere) {
      const shown = spectator.report.view?.[expected.to.row]?.[expected.to.col] ?? " "
      if (!clients.unseen.has(letter)) clients.unseen.set(letter, { letter, at: expected.to, shown, row: spectator.report.view?.[expected.to.row] ?? "" })
      return true
    }
    if (!moved && !(unshown && seen)) {
      const own = player.report.position === undefined ? "its DISPLAY does not show it (no @)" : `its DISPLAY shows it at ${where(player.report.position)}`
      context.fail({
        what: `KEY ${key} from ${where(from)} should take the player to ${where(expected.to)}${expected.target === "*" ? " (gold)" : ""}; ${own}` +
          `, and the spectator shows ${letter} at ${where(clients.spectatorSees(letter))}`,
        sent,
        got: player.probe.recent(1).join("") || `nothing within ${context.answerMs} ms`,
        spec: key === key.toLowerCase() ? Requirements.moveKeys : Requirements.runKeys
      })
      return false
    }
    if (!seen && !over()) {
      context.fail({
        what: `player ${letter} moved to ${where(clients.whereIs(player))}, but the spectator was not told: it shows ${letter} at ${where(clients.spectatorSees(letter))}`,
        sent,
        got: spectator.probe.recent(1).map((each) => escaped(each, 40)).join("") || `nothing within ${context.answerMs} ms`,
        spec: Requirements.moveToAll
      })
    }
    return true
  })

/** The first step of a shortest walk for `player` to a cell where `goal` holds, on the spectator's view. */
export const stepToward = (view: ReadonlyArray<string>, from: Position, goal: (char: string, at: Position) => boolean): string | undefined => {
  const rows = view.length
  const cols = view[0]?.length ?? 0
  const cellOf = (cell: number) => ({ row: Math.floor(cell / cols), col: cell % cols })
  const char = (cell: number) => view[Math.floor(cell / cols)]?.[cell % cols] ?? " "
  return firstStepOnGrid(rows, cols, from.row * cols + from.col, (cell) => canStepOn(char(cell)), (cell) => goal(char(cell), cellOf(cell)))
}

/** Walks `player` a step at a time until it has stepped onto a cell where `goal` held; at most `maxSteps`. */
export const walkTo = (
  context: ServerRecorder,
  player: Client,
  goal: (char: string, at: Position) => boolean,
  what: string,
  maxSteps = 500
): Effect.Effect<void, Stop | NotRun | UdpError> =>
  Effect.gen(function*() {
    for (let steps = 0; steps < maxSteps; steps++) {
      const letter = yield* letterOf(player)
      const from = yield* placed(context, player)
      const view = context.clients.view ?? []
      const key = stepToward(view, from, goal)
      const direction = key === undefined ? undefined : MoveDirections[key]
      if (key === undefined || direction === undefined) return yield* stop({ what: `player ${letter} has no way to ${what} on the spectator's view`, spec: Requirements.spectatorView })
      const [dRow, dCol] = direction
      const target = { row: from.row + dRow, col: from.col + dCol }
      const last = goal(charAt(view, target), target)
      if (!(yield* pressMove(context, player, key))) return yield* stop({ what: `player ${letter} could not ${what}`, spec: Requirements.moveKeys })
      if (last) return
    }
    return yield* stop({ what: `player ${player.report.letter} did not ${what} in ${maxSteps} steps`, spec: Requirements.moveKeys })
  })
