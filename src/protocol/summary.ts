/**
 * The game-over summary, read: one line per player with its letter, purse and name. Servers
 * write it as `L purse name` (the spec's order, ours and most CS50 servers'), as
 * `name L purse` (one 2019 server) or as `L name purse`, with spaces or tabs between; all
 * are read. Blank lines are skipped.
 */

export interface Standing {
  readonly letter: string
  readonly purse: number
  readonly name: string
}

const letterFirst = /^\s*([A-Z])\s+(\d{1,9})(?:\s(.*))?$/
const nameFirst = /^\s*(.*?)\s+([A-Z])\s+(\d{1,9})\s*$/
const purseLast = /^\s*([A-Z])\s+(.*?)\s+(\d{1,9})\s*$/

const standingOf = (row: string): Standing | undefined => {
  const first = letterFirst.exec(row)
  if (first) return { letter: first[1]!, purse: Number(first[2]), name: (first[3] ?? "").trim() }
  const last = nameFirst.exec(row)
  if (last) return { letter: last[2]!, purse: Number(last[3]), name: last[1]!.trim() }
  const between = purseLast.exec(row)
  if (between) return { letter: between[1]!, purse: Number(between[3]), name: between[2]! }
  return undefined
}

/**
 * A game-over summary as a client holds it: the standings themselves where it has them (a
 * replay, the game its own process hosts), or the text a server sent, read when shown.
 */
export type Summary = ReadonlyArray<Standing> | string

/** Every player's line, in the summary's order; undefined when a line is in neither form. */
export const parseStandings = (summary: string): ReadonlyArray<Standing> | undefined => {
  const rows = summary.split("\n").map((row) => row.replace(/\r$/, "")).filter((row) => row.trim() !== "")
  const standings = rows.map(standingOf)
  if (standings.length === 0 || standings.some((each) => each === undefined)) return undefined
  return standings as ReadonlyArray<Standing>
}

/**
 * Players in their places, best first: most nuggets, then letter order. Equal purses share
 * a place and the next place skips as many (1, 2, 2, 4: standard competition ranking), so
 * every best purse is in first place, a winner. The rule of ranking, here below the client
 * and the archive, which both rank by it.
 */
export const byPlace = <P extends { readonly letter: string; readonly purse: number }>(
  players: ReadonlyArray<P>
): ReadonlyArray<P & { readonly place: number }> => {
  const sorted = [...players].sort((a, b) => b.purse - a.purse || a.letter.localeCompare(b.letter))
  let place = 0
  return sorted.map((each, i) => {
    if (i === 0 || each.purse !== sorted[i - 1]!.purse) place = i + 1
    return { ...each, place }
  })
}

/** A summary's standings: read from a server's text, or as they were given. */
export const standingsOf = (summary: Summary): ReadonlyArray<Standing> | undefined =>
  typeof summary === "string" ? parseStandings(summary) : summary

/**
 * A player's own line: by its letter when it knows it, else by its name (a player whose
 * OK was lost may never learn its letter). Undefined when neither finds exactly one line.
 */
export const ownStanding = (
  summary: Summary,
  me: { readonly letter: string | undefined; readonly name: string | undefined }
): Standing | undefined => {
  const standings = standingsOf(summary) ?? []
  const byLetter = me.letter === undefined ? [] : standings.filter((each) => each.letter === me.letter)
  if (byLetter.length === 1) return byLetter[0]
  const name = me.name?.trim()
  const byName = name === undefined ? [] : standings.filter((each) => each.name === name)
  return byName.length === 1 ? byName[0] : undefined
}
