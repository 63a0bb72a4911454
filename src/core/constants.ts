/** The game's parameters, as the requirements spec fixes them. */
export const MaxNameLength = 50
export const MaxPlayers = 26
export const GoldTotal = 250
export const GoldMinNumPiles = 10
export const GoldMaxNumPiles = 30

export const PlayerLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

/**
 * The move keys and the step each makes (row, column). A capital runs in the same
 * direction as far as possible.
 */
export const MoveDirections: Readonly<Record<string, readonly [dRow: number, dCol: number]>> = {
  h: [0, -1],
  l: [0, 1],
  j: [1, 0],
  k: [-1, 0],
  y: [-1, -1],
  u: [-1, 1],
  b: [1, -1],
  n: [1, 1]
}

export const MoveKeys = Object.keys(MoveDirections)

/**
 * Ctrl-L, as in every roguelike: not a key of the spec, but `KEY` with it asks the server
 * for the client's GOLD and DISPLAY again, after a lost datagram.
 */
export const RedrawKey = "\f"
