import type { ChangeSet, ClientId, Envelope, GameState, Notice, Player, Viewer } from "./state.js"
import { forEachChangedView, viewChanged } from "./view.js"

// Who is sent a DISPLAY after a transition. The rule lives here, in the core's notices, and
// not in the server's buffers, because the notices are the one statement of who is told
// what: the server sends them as they are, a replay shows a viewer the notices it was sent,
// and tests read them without a socket. It costs less than the buffers' patching did: the
// server patches only the buffers of the viewers told (see `DisplayBuffers.advance`), and
// deciding takes a binary search or two per player, in the sight sets of the few changed
// gridpoints (see `forEachChangedView`).

const display: Notice = { _tag: "Display" }

/**
 * A DISPLAY, appended to `out`, for each viewer whose view the transition changed (see
 * `viewChanged`): the player who moved, anyone swapped, anyone in sight of a gridpoint
 * that changed, and the spectator whenever one did; and for each viewer `out` already
 * tells GOLD, since some clients redraw their status line only with a DISPLAY. Everyone
 * else already shows what it would be sent. `except` (a newcomer) has its own DISPLAY.
 */
export const displayWhereChanged = (
  state: GameState,
  changes: ChangeSet,
  out: Array<Envelope>,
  except?: ClientId
): Array<Envelope> => {
  const toldGold = goldTold(out)
  const tell = (player: Player) => {
    if (player.client !== except) out.push({ to: player.client, viewer: player.index, notice: display })
  }
  if (toldGold === undefined) {
    forEachChangedView(state, changes, tell)
  } else {
    const changed = new Set<number>()
    forEachChangedView(state, changes, (player) => changed.add(player.index))
    for (const player of state.players) {
      if (player.active && (toldGold.has(player.index) || changed.has(player.index))) tell(player)
    }
  }
  const spectator = state.spectator
  if (spectator !== undefined && spectator !== except && (toldGold?.has("spectator") || viewChanged(state, "spectator", changes))) {
    out.push({ to: spectator, viewer: "spectator", notice: display })
  }
  return out
}

/**
 * A DISPLAY for `player` alone: the answer to its key that moved no one (into a wall). Its
 * view is as it was, but every key of a player is answered, so that a client whose last
 * DISPLAY was lost on the way has its view again with its next key, whatever that is.
 */
export const displayFor = (player: Player): Envelope => ({ to: player.client, viewer: player.index, notice: display })

/** The viewers `out` tells GOLD; undefined when none (a plain move, the common case). */
const goldTold = (out: ReadonlyArray<Envelope>): Set<Viewer> | undefined => {
  let told: Set<Viewer> | undefined
  for (const { notice, viewer } of out) if (notice._tag === "Gold") (told ??= new Set()).add(viewer)
  return told
}
