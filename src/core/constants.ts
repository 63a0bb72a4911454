/** The game's parameters, as the requirements spec fixes them. */
export const MaxBytes = 65507
export const MaxNameLength = 50
export const MaxPlayers = 26
export const GoldTotal = 250
export const GoldMinNumPiles = 10
export const GoldMaxNumPiles = 30

/** "DISPLAY\n" precedes the grid in every DISPLAY datagram. */
export const DisplayHeaderLength = "DISPLAY\n".length

export const PlayerLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
