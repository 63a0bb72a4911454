/**
 * Whether to colour what is written to `stream`: only on a terminal, and only when neither
 * NO_COLOR (no-color.org) nor --no-color (`noColor`) says otherwise. Every command that
 * colours asks here: the client's screen, help, the checkers' reports, the proxy's timeline.
 */
export const colourWanted = (stream: { readonly isTTY?: boolean }, noColor = false): boolean =>
  stream.isTTY === true && !noColor && (process.env.NO_COLOR ?? "") === ""
