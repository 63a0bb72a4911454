/**
 * Greedy word wrap: as many words on a line as fit in `width`, lines broken only between
 * words. A word longer than the width is cut when `cut` is set (a screen's lines must fit
 * exactly), else it gets a line of its own. Written by hand: @effect/printer's layout,
 * tried for help, takes seconds for one paragraph at 40 columns.
 */
export const wrap = (text: string, width: number, options: { readonly cut?: boolean } = {}): Array<string> => {
  const lines: Array<string> = []
  let current = ""
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = current === "" ? word : `${current} ${word}`
    if (candidate.length <= width) {
      current = candidate
    } else {
      if (current !== "") lines.push(current)
      current = options.cut ? word.slice(0, width) : word
    }
  }
  if (current !== "") lines.push(current)
  return lines
}
