import { endOf, noWinner } from "../protocol/endings.js"
import { byPlace, standingsOf, type Summary } from "../protocol/summary.js"
import { sanitize, Style } from "./style.js"

/**
 * The final standings, best first (see `byPlace` in protocol/summary.ts), our own line
 * marked, and the winner (or winners, on a tie) when the game is over: one that ended
 * with nuggets on the map (`nuggetsLeft`, when known) has none, and says how many were left
 * instead. A summary in a form we do not know is shown as it came. Each line with its style.
 */
export const rankedSummary = (
  summary: Summary,
  me: string | undefined,
  nuggetsLeft?: number
): ReadonlyArray<readonly [string, string]> => {
  const standings = standingsOf(summary)
  const stopped = nuggetsLeft !== undefined && endOf(nuggetsLeft) === "stopped"
  const left: ReadonlyArray<readonly [string, string]> = stopped ? [[noWinner(nuggetsLeft), Style.hint]] : []
  if (standings === undefined || standings.length === 0) {
    const rows = typeof summary === "string" ? summary.split("\n").filter((row) => row !== "").map((row) => [sanitize(row), Style.plain] as const) : []
    return [...rows, ...left]
  }
  const ranked = byPlace(standings)
  const width = Math.max(...ranked.map((each) => String(each.purse).length))
  return [
    ...ranked.map((each) => {
      const winner = each.place === 1 && !stopped
      const marks = [winner ? "winner" : "", each.letter === me ? "you" : ""].filter(Boolean).join(", ")
      const text = `${String(each.place).padStart(2)}. ${each.letter} ${String(each.purse).padStart(width)} ${sanitize(each.name)}${marks ? `  <- ${marks}` : ""}`
      return [text, each.letter === me ? Style.mark : winner ? Style.strong : Style.plain] as const
    }),
    ...left
  ]
}
