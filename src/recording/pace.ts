/**
 * How a replay is paced, wherever it is watched (the terminal, the web page): pure
 * numbers, so that the page's script can share them.
 */

/** The longest pause between two moves a replay keeps: idle minutes are not worth watching. */
export const longestGap = 2000

/** Speeds go from `slowest` to `fastest`, halving or doubling. */
export const slowest = 1 / 8
export const fastest = 64
