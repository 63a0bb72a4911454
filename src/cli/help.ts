import { wrap } from "../wrap.js"
import type { CommandNode, HelpEntry } from "./command.js"

/**
 * Help as plain text, wrapped at word boundaries to `width` columns (the terminal's, or 80
 * when help is not shown on a terminal), as gh and rg do.
 */

/** A table's first column is at most this wide; a longer term gets a line of its own. */
const widestTerm = 22
/** Narrower than this, a description goes below its term instead of beside it. */
const narrowestText = 24

/** Text wrapped to `width`, every line after the first indented by `indent`. */
const paragraph = (text: string, width: number, indent = 0): string =>
  wrap(text, width - indent).map((line, index) => (index === 0 ? line : " ".repeat(indent) + line)).join("\n")

/** Rows of a term and its description, the descriptions in a column of their own. */
export const table = (rows: ReadonlyArray<readonly [string, string]>, width: number): Array<string> => {
  const column = Math.min(widestTerm, Math.max(...rows.map(([term]) => term.length)))
  const indent = 2 + column + 2
  return rows.flatMap(([term, text]) => {
    if (width - indent < narrowestText) return [`  ${term}`, ...wrap(text, width - 6).map((line) => `      ${line}`)]
    const lines = wrap(text, width - indent).map((line) => " ".repeat(indent) + line)
    if (term.length > column) return [`  ${term}`, ...lines]
    return [`  ${term.padEnd(column)}  ${(lines[0] ?? "").slice(indent)}`, ...lines.slice(1)]
  })
}

const entryRows = (entries: ReadonlyArray<HelpEntry>) =>
  entries.map((entry) => [entry.term, entry.default === undefined ? entry.text : `${entry.text} (default: ${entry.default})`] as const)

export interface HelpLayout {
  /** Bold headings, for a terminal that shows them. */
  readonly colour: boolean
  readonly width: number
}

/** The help of `node`, whose full path (`nuggets map check`) is `path`. */
export const renderHelp = <R, E>(
  path: ReadonlyArray<string>,
  node: Pick<CommandNode<R, E>, "help" | "children">,
  layout: HelpLayout
): string => {
  const { colour, width } = layout
  const heading = (text: string) => (colour ? `\x1b[1m${text}\x1b[0m` : text)
  const { help } = node
  const usage = [...path, help.usage ?? (node.children ? "<command>" : "")].join(" ").trim()
  const lines = [`${heading("Usage:")} ${paragraph(usage, width, 7)}`, "", paragraph(help.summary, width)]
  if (node.children) {
    lines.push("", heading("Commands:"), ...table(node.children.map((child) => [child.name, child.help.summary] as const), width))
  }
  if (help.args?.length) lines.push("", heading("Arguments:"), ...table(entryRows(help.args), width))
  const builtIn: Array<HelpEntry> = [{ term: "-h, --help", text: "show this help" }]
  if (path.length === 1) builtIn.push({ term: "-V, --version", text: "print the version" })
  lines.push("", heading("Options:"), ...table(entryRows([...(help.options ?? []), ...builtIn]), width))
  for (const section of help.more ?? []) {
    lines.push("", heading(`${section.title}:`))
    if (section.rows.length > 0) lines.push(...table(section.rows, width))
    if (section.text !== undefined) lines.push("", paragraph(section.text, width))
  }
  return lines.join("\n")
}
