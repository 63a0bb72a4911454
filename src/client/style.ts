/**
 * Lines of styled cells: what a screen is made of. `paint.ts` turns them into what the
 * terminal is sent.
 */

/**
 * How a character is drawn. A letter per style, so that a line's styles are a string as
 * long as its text: cheap to compare and to slice.
 */
export const Style = {
  plain: " ",
  wall: "w",
  floor: "f",
  passage: "p",
  gold: "g",
  self: "@",
  player: "o",
  /** A note on the status line. */
  note: "n",
  /** Something to know but not to read first: the join line, the keys to press. */
  hint: "h",
  /** A heading, the winner. */
  strong: "s",
  /** The player's own line in the standings. */
  mark: "m"
} as const

export interface Line {
  readonly text: string
  /** One `Style` letter per character of `text`. */
  readonly styles: string
}

export type Screen = ReadonlyArray<Line>

/** Anything outside printable ASCII (control characters above all) becomes `?`. */
export const sanitize = (text: string): string =>
  Array.from(text, (char) => {
    const code = char.codePointAt(0)!
    return code >= 0x20 && code <= 0x7e ? char : "?"
  }).join("")

/** Sanitized, then cut or padded to exactly `width` cells. */
export const fit = (text: string, width: number): string => sanitize(text).slice(0, width).padEnd(width)

export const line = (text: string, style: string = Style.plain): Line => ({ text, styles: style.repeat(text.length) })

/** Pieces of text, each in its style, cut or padded to `width`. */
export const styled = (pieces: ReadonlyArray<readonly [string, string]>, width: number): Line => {
  let text = ""
  let styles = ""
  for (const [piece, style] of pieces) {
    const safe = sanitize(piece)
    text += safe
    styles += style.repeat(safe.length)
  }
  return { text: text.slice(0, width).padEnd(width), styles: styles.slice(0, width).padEnd(width, Style.plain) }
}
