/**
 * The keys, in one place: what the terminal sends for the keys that are not characters,
 * which move key each arrow stands for (in the terminal and in the browser), and the help
 * that lists them, in the client, the replay and the page. No node imports: the page is
 * bundled from this.
 */

/** Ctrl-C. */
export const InterruptKey = "\u0003"
/** Ctrl-D: in raw mode the terminal sends no EOF; Ctrl-D is a keystroke, and it means the same. */
export const EndOfTransmissionKey = "\u0004"
/** Ctrl-Z: the client suspends itself; nothing goes to the server. */
export const SuspendKey = "\u001a"

/** Each arrow, the move key it stands for, what terminals send for it (both cursor modes), and the browser's name for it. */
const arrows: ReadonlyArray<{ readonly move: string; readonly terminal: ReadonlyArray<string>; readonly browser: string }> = [
  { move: "k", terminal: ["\u001b[A", "\u001bOA"], browser: "ArrowUp" },
  { move: "j", terminal: ["\u001b[B", "\u001bOB"], browser: "ArrowDown" },
  { move: "l", terminal: ["\u001b[C", "\u001bOC"], browser: "ArrowRight" },
  { move: "h", terminal: ["\u001b[D", "\u001bOD"], browser: "ArrowLeft" }
]

const byTerminal = new Map(arrows.flatMap(({ move, terminal }) => terminal.map((sequence) => [sequence, move] as const)))
const byBrowser = new Map(arrows.map(({ browser, move }) => [browser, move] as const))

/** The move key an arrow stands for, given what the terminal sent; undefined when it is no arrow. */
export const terminalArrow = (sequence: string): string | undefined => byTerminal.get(sequence)

/** The move key an arrow stands for, given the browser's `KeyboardEvent.key`; undefined when it is no arrow. */
export const browserArrow = (key: string): string | undefined => byBrowser.get(key)

/** One line of key help: the keys, and what they do. */
export type KeyHelp = readonly [keys: string, what: string]

const moveHelp: KeyHelp = ["h j k l", "move left, down, up, right (arrow keys too)"]
const diagonalHelp: KeyHelp = ["y u b n", "move up-left, up-right, down-left, down-right"]
const runHelp: KeyHelp = ["H J K L Y U B N", "run that way as far as you can"]
const redrawHelp: KeyHelp = ["Ctrl-L", "ask for the view again and repaint"]
const suspendHelp: KeyHelp = ["Ctrl-Z", "suspend; fg comes back"]
const helpHelp: KeyHelp = ["?", "this help; any key closes it"]

/** Every key a player has, for the help overlay and for `--help`. */
export const keyHelp: ReadonlyArray<KeyHelp> = [
  moveHelp,
  diagonalHelp,
  runHelp,
  ["Q", "quit (Ctrl-C and Ctrl-D too)"],
  redrawHelp,
  suspendHelp,
  helpHelp
]

/** The spectator's keys: it moves nothing, but moves a view that scrolls. */
export const spectatorKeyHelp: ReadonlyArray<KeyHelp> = [
  ["Q", "stop watching (Ctrl-C and Ctrl-D too)"],
  ["h j k l y u b n", "in a view that scrolls: move the view (capitals: 10 at a time; arrow keys too)"],
  ["S", "a view that scrolls, when the window is too small"],
  redrawHelp,
  suspendHelp,
  helpHelp
]

/** A replay's own keys in the terminal: the web replay's, and more. */
export const replayKeyHelp: ReadonlyArray<KeyHelp> = [
  ["space", "pause or go on"],
  ["+ -", "faster, slower"],
  [". l ->", "one move on (pauses)"],
  [", h <-", "one move back (pauses)"],
  ["] [", "a tenth of the game on, back"],
  ["g G", "the start, the end"],
  ["q", "quit (Ctrl-C and Ctrl-D too)"],
  suspendHelp,
  helpHelp
]

/** A player's keys in the page: the terminal's, but the Ctrl keys, which the browser keeps. */
export const pageKeyHelp: ReadonlyArray<KeyHelp> = [moveHelp, diagonalHelp, runHelp, ["Q", "quit"], helpHelp]

/**
 * The page's pad for a touch screen, row by row: each direction's move key, its name (its
 * button's label) and its arrow; in the middle, the key that makes the next moves runs.
 */
export const padKeys: ReadonlyArray<{ readonly key: string; readonly name: string; readonly arrow: string } | "run"> = [
  { key: "y", name: "up-left", arrow: "↖" },
  { key: "k", name: "up", arrow: "↑" },
  { key: "u", name: "up-right", arrow: "↗" },
  { key: "h", name: "left", arrow: "←" },
  "run",
  { key: "l", name: "right", arrow: "→" },
  { key: "b", name: "down-left", arrow: "↙" },
  { key: "j", name: "down", arrow: "↓" },
  { key: "n", name: "down-right", arrow: "↘" }
]

/** The page's line of keys for a live game, and for a replay (its buttons do the rest). */
export const pageLiveKeys = "Keys: h j k l y u b n or the arrows move, capitals run, Q quits, ? lists them."
export const pageReplayKeys = "Replay: space pauses, + and − change the speed, ← and → step."
