import { byPlace, standingsOf, type Summary } from "../protocol/summary.js"
import { sanitize, Style } from "./style.js"

/**
 * The final standings, best first (see `byPlace` in protocol/summary.ts): the winner (or winners, on a tie) and
 * our own line marked. A summary in a form we do not know is shown as it came. Each line
 * with its style.
 */
export const rankedSummary = (summary: Summary, me: string | undefined): ReadonlyArray<readonly [string, string]> => {
  const standings = standingsOf(summary)
  if (standings === undefined || standings.length === 0) {
    return typeof summary === "string" ? summary.split("\n").filter((row) => row !== "").map((row) => [sanitize(row), Style.plain]) : []
  }
  const ranked = byPlace(standings)
  const width = Math.max(...ranked.map((each) => String(each.purse).length))
  return ranked.map((each) => {
    const winner = each.place === 1
    const marks = [winner ? "winner" : "", each.letter === me ? "you" : ""].filter(Boolean).join(", ")
    const text = `${String(each.place).padStart(2)}. ${each.letter} ${String(each.purse).padStart(width)} ${sanitize(each.name)}${marks ? `  <- ${marks}` : ""}`
    return [text, each.letter === me ? Style.mark : winner ? Style.strong : Style.plain] as const
  })
}
