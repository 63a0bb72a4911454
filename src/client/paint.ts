import { cursorTo, eraseScreen } from "ansi-escapes"
import { type Screen, Style } from "./screen.js"

/**
 * Each style's SGR parameters: the 16 colours every terminal has, and attributes (bold,
 * dim, reverse) that read on dark and on light backgrounds alike. Walls and plain text
 * keep the terminal's own colour.
 */
const sgr: Readonly<Record<string, string>> = {
  [Style.plain]: "0",
  [Style.wall]: "0",
  [Style.floor]: "0;2",
  [Style.passage]: "0;36",
  [Style.gold]: "0;1;33",
  [Style.self]: "0;1;7",
  [Style.player]: "0;1;31",
  [Style.note]: "0;1",
  [Style.hint]: "0;2",
  [Style.strong]: "0;1",
  [Style.mark]: "0;7"
}

const setStyle = (style: string) => `\u001b[${sgr[style] ?? "0"}m`

/**
 * The bytes that turn the screen `previous` (as last drawn) into `next`: only the changed
 * span of each changed line is written, with its colours when `colour` is on. With no
 * previous screen of the same size, all of it.
 */
export const frameDiff = (previous: Screen | undefined, next: Screen, colour: boolean): string => {
  const full = previous === undefined || previous.length !== next.length ||
    previous.some((line, row) => line.text.length !== next[row]!.text.length)
  let out = full ? cursorTo(0, 0) + (colour ? setStyle(Style.plain) : "") + eraseScreen : ""
  let current: string = Style.plain
  next.forEach((line, row) => {
    // An erased screen is all blanks, unstyled.
    const beforeText = full ? " ".repeat(line.text.length) : previous[row]!.text
    const beforeStyles = full ? Style.plain.repeat(line.text.length) : previous[row]!.styles
    const differs = (col: number) =>
      beforeText[col] !== line.text[col] || (colour && beforeStyles[col] !== line.styles[col])
    let first = 0
    let last = line.text.length - 1
    while (first <= last && !differs(first)) first++
    while (last >= first && !differs(last)) last--
    if (first > last) return
    out += cursorTo(first, row)
    for (let col = first; col <= last; col++) {
      const style = line.styles[col] ?? Style.plain
      if (colour && style !== current) {
        out += setStyle(style)
        current = style
      }
      out += line.text[col]
    }
  })
  if (colour && current !== Style.plain) out += setStyle(Style.plain)
  return out
}
