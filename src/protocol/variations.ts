import { ReaderNote } from "./notes.js"

/**
 * What our readers (the terminal client, the bots, the web page: all through `reader.ts`)
 * accept besides the spec's exact form. The rule: read every variation a real server sends
 * whose meaning is clear; refuse only what cannot be understood, with a note on the status
 * line, keeping what was known before.
 *
 * Each variation is a sequence of datagrams and the spec-form sequence it means: reading
 * either gives the same report (letter, grid, view, purse, nuggets left, ending). Each has
 * a test (`test/variations.test.ts`). `seenFrom` names the servers that send it, among
 * those we have played with (see the README); "none" marks a variation no server we know
 * sends, read because its meaning is plain.
 */

export interface Variation {
  readonly rule: string
  readonly seenFrom: string
  /** Read from a fresh report ("new"), or after `OK A`, `GRID 3 5` and `GOLD 0 0 250` ("joined"). */
  readonly start: "new" | "joined"
  readonly example: ReadonlyArray<string>
  /** The same, as the spec writes it. */
  readonly means: ReadonlyArray<string>
  /** The note the example leaves on the status line, where it says more than `means`. */
  readonly note?: ReaderNote
}

const spec = (...rows: ReadonlyArray<string>) => "DISPLAY\n" + rows.map((row) => row + "\n").join("")
const rows = ["+---+", "|.@*|", "+---+"] as const

export const variations: ReadonlyArray<Variation> = [
  {
    rule: "A DISPLAY whose last row does not end with a newline",
    seenFrom: "CS50DartmouthWI24/nuggets-ribhuhooja, nitya308/nuggets-game",
    start: "joined",
    example: ["DISPLAY\n" + rows.join("\n")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY whose rows each begin with a newline instead of ending with one",
    seenFrom: "nitya308/nuggets-game",
    start: "joined",
    example: ["DISPLAY\n\n" + rows.join("\n")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY whose rows end with CRLF",
    seenFrom: "none",
    start: "joined",
    example: ["DISPLAY\n" + rows.map((row) => row + "\r\n").join("")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY before OK and GRID: drawn at its own size until GRID comes",
    seenFrom: "CS50DartmouthWI24/nuggets-ribhuhooja",
    start: "new",
    example: ["DISPLAY\n" + rows.join("\n"), "OK A", "GRID 3 5", "GOLD 0 0 250"],
    means: ["OK A", "GRID 3 5", "GOLD 0 0 250", spec(...rows)]
  },
  {
    rule: "A one-line message ending with a newline",
    seenFrom: "nitya308/nuggets-game (GOLD, QUIT, ERROR), CS50DartmouthWI24/nuggets-ribhuhooja (QUIT)",
    start: "joined",
    example: ["GOLD 4 4 246\n", "QUIT Thanks for playing!\n"],
    means: ["GOLD 4 4 246", "QUIT Thanks for playing!"]
  },
  {
    rule: "A message type followed by a stop: ERROR.",
    seenFrom: "nitya308/nuggets-game",
    start: "joined",
    example: ["ERROR. Invalid keystroke.\n"],
    means: ["ERROR Invalid keystroke."],
    note: ReaderNote.ServerSaid({ refusal: "Error", text: "Invalid keystroke." })
  },
  {
    rule: "More than one space, or a tab, between numbers",
    seenFrom: "none",
    start: "joined",
    example: ["GOLD 4  4\t246"],
    means: ["GOLD 4 4 246"]
  },
  {
    rule: "The 2021 dialect's game over: QUIT GAME OVER: and the summary",
    seenFrom: "zhouselena/nuggets2-team14-headbashing-public, CS50DartmouthWI24/nuggets-ribhuhooja, nitya308/nuggets-game",
    start: "joined",
    example: ["QUIT GAME OVER:\nA       5 Alice"],
    means: ["GAMEOVER\nA       5 Alice"]
  },
  {
    rule: "QUIT GAME OVER: with no summary at all (no player left to list)",
    seenFrom: "zhouselena/nuggets2-team14-headbashing-public",
    start: "joined",
    example: ["QUIT GAME OVER:"],
    means: ["GAMEOVER\n"]
  },
  {
    rule: "ERROR where the spec says NO (the 2021 dialect)",
    seenFrom: "zhouselena/nuggets2-team14-headbashing-public, CS50DartmouthWI24/nuggets-ribhuhooja, nitya308/nuggets-game",
    start: "joined",
    example: ["ERROR unknown keystroke."],
    means: ["NO unknown keystroke."],
    note: ReaderNote.ServerSaid({ refusal: "Error", text: "unknown keystroke." })
  },
  {
    rule: "QUIT (or ERROR) as the refusal of a PLAY: before we are in, it is a refusal, not a goodbye",
    seenFrom: "zhouselena/nuggets2-team14-headbashing-public, CS50DartmouthWI24/nuggets-ribhuhooja, nitya308/nuggets-game",
    start: "new",
    example: ["QUIT Game is full: no more players can join.\n"],
    means: ["NO Game is full: no more players can join."]
  },
  {
    rule: "A bare QUIT, with no reason",
    seenFrom: "Aadil101/nuggets",
    start: "joined",
    example: ["QUIT"],
    means: ["QUIT "]
  },
  {
    rule: "GOLDSTEAL n p r L, one server's news of a theft: our purse p, r left, a note of who took what",
    seenFrom: "zhouselena/nuggets2-team14-headbashing-public",
    start: "joined",
    example: ["GOLDSTEAL -1 9 200 B"],
    means: ["GOLD 0 9 200"],
    note: ReaderNote.TookFromYou({ by: "B", n: 1 })
  },
  {
    rule: "A GOLD with more nuggets left than one already read is older, overtaken on the way: ignored",
    seenFrom: "any server, when the network reorders datagrams",
    start: "joined",
    example: ["GOLD 12 12 238", "GOLD 0 0 245"],
    means: ["GOLD 12 12 238"]
  }
]

/** What is refused: it cannot be understood. Each leaves a note and changes nothing else. */
export const refusals: ReadonlyArray<{ readonly rule: string; readonly example: string; readonly note: ReaderNote }> = [
  {
    rule: "A DISPLAY whose rows differ in length",
    example: "DISPLAY\n+---+\n|.@|\n+---+\n",
    note: ReaderNote.BadDisplay({ reason: "the DISPLAY grid's rows differ in length" })
  },
  {
    rule: "A DISPLAY of another size than GRID's",
    example: spec("+--+", "|@.|", "+--+"),
    note: ReaderNote.BadDisplay({ reason: "DISPLAY is 3x4, GRID said 3x5" })
  },
  {
    rule: "A GOLD without its three numbers",
    example: "GOLD 4 4",
    note: ReaderNote.BadMessage({ kind: "malformed", reason: "bad GOLD \"4 4\"" })
  },
  {
    rule: "A message type we do not know",
    example: "HELLO there",
    note: ReaderNote.BadMessage({ kind: "unknown", reason: "unknown message type \"HELLO\"" })
  }
]
