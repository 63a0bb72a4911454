import { standingsOf, type Summary } from "../protocol/summary.js"
import { sanitize, Style } from "./style.js"

/**
 * The final standings, best first: the winner (or winners, on a tie) and our own line
 * marked; equal purses share a rank (1, 2, 2, 4). A summary in a form we do not know is
 * shown as it came. Each line with its style.
 */
export const rankedSummary = (summary: Summary, me: string | undefined): ReadonlyArray<readonly [string, string]> => {
  const standings = standingsOf(summary)
  if (standings === undefined || standings.length === 0) {
    return typeof summary === "string" ? summary.split("\n").filter((row) => row !== "").map((row) => [sanitize(row), Style.plain]) : []
  }
  const ranked = standings.slice().sort((a, b) => b.purse - a.purse || a.letter.localeCompare(b.letter))
  const best = ranked[0]!.purse
  const width = Math.max(...ranked.map((each) => String(each.purse).length))
  return ranked.map((each) => {
    const rank = ranked.findIndex((other) => other.purse === each.purse) + 1
    const marks = [each.purse === best ? "winner" : "", each.letter === me ? "you" : ""].filter(Boolean).join(", ")
    const text = `${String(rank).padStart(2)}. ${each.letter} ${String(each.purse).padStart(width)} ${sanitize(each.name)}${marks ? `  <- ${marks}` : ""}`
    return [text, each.letter === me ? Style.mark : each.purse === best ? Style.strong : Style.plain] as const
  })
}
