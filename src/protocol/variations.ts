import { ReaderNote } from "./notes.js"

/**
 * What our readers (the terminal client, the bots, the web page: all through `reader.ts`)
 * accept besides the spec's exact form. The rule: read every variation a real server sends
 * whose meaning is clear; refuse only what cannot be understood, with a note on the status
 * line, keeping what was known before.
 *
 * A DISPLAY's size is its own: blank padding beyond GRID's size is cut, one line of rows is
 * reshaped by GRID's width, and then the DISPLAY's shape wins over what GRID said, unless
 * it is larger either way round by more than one (801 rows for 21): that one is ignored.
 *
 * Each variation is a sequence of datagrams and the spec-form sequence it means: reading
 * either gives the same report (letter, grid, view, purse, nuggets left, ending). Each has
 * a test (`test/variations.test.ts`), and where a server we have captured sends it, a
 * fixture (`test/fixtures/peers/`). `seen` names the servers that send it, among those we
 * have played with (see the README); none, for a variation read because its meaning is plain.
 * (A list of data, one entry per variation: it grows with every server we meet.)
 */

/** Where a variation was seen: an implementation (its GitHub repository) and, when known, where in its C code. */
export interface Sighting {
  readonly implementation: string
  readonly source?: string
  /** Our capture of its server (`test/fixtures/peers/`) shows it: the test holds it there. */
  readonly captured?: true
}

export interface Variation {
  readonly rule: string
  /** Empty for a variation no server we know sends, read because its meaning is plain. */
  readonly seen: ReadonlyArray<Sighting>
  /**
   * Read from a fresh player's report ("new"), a fresh spectator's ("spectator"), or after
   * `OK A`, `GRID 3 5` and `GOLD 0 0 250` ("joined").
   */
  readonly start: "new" | "spectator" | "joined"
  readonly example: ReadonlyArray<string>
  /** The same, as the spec writes it. */
  readonly means: ReadonlyArray<string>
  /** The note the example leaves on the status line, where it says more than `means`. */
  readonly note?: ReaderNote
}

const spec = (...rows: ReadonlyArray<string>) => "DISPLAY\n" + rows.map((row) => row + "\n").join("")
const rows = ["+---+", "|.@*|", "+---+"] as const
/** The same room one column narrower than `GRID 3 5` says. */
const narrow = ["+--+", "|@*|", "+--+"] as const

/** One of the sixteen implementations issue 25 tried but does not name, so that they stay a fair test. */
const unnamed: Sighting = { implementation: "an implementation issue 25 tried and leaves unnamed" }
/** Likewise, one of the ten issue 36 met for the first time. */
const unnamedLater: Sighting = { implementation: "an implementation issue 36 tried and leaves unnamed" }
const aadil = "Aadil101/nuggets"
const zhouselena = "zhouselena/nuggets2-team14-headbashing-public"
const ribhuhooja = "CS50DartmouthWI24/nuggets-ribhuhooja"
const nitya = "nitya308/nuggets-game"
const nunchuck = "cs50spring2021/nuggets-nunchuck-buccaneer"
const binaryBrigade = "CS50Spring2023/nuggets2-binary-brigade"
const danieldong = "danieldong51/nuggets-game"
const ryanxyong = "ryanxyong/nuggets-2"
const willDinauer = "WillDinauer/Nuggets-Game"
const hemlock = "leoxie2000/nuggets-hemlock-main"

export const variations: ReadonlyArray<Variation> = [
  {
    rule: "A DISPLAY whose last row does not end with a newline",
    seen: [{ implementation: ribhuhooja, captured: true }, { implementation: nitya, captured: true }],
    start: "joined",
    example: ["DISPLAY\n" + rows.join("\n")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY whose rows each begin with a newline instead of ending with one",
    seen: [{ implementation: nitya, captured: true }],
    start: "joined",
    example: ["DISPLAY\n\n" + rows.join("\n")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY whose rows end with CRLF",
    seen: [],
    start: "joined",
    example: ["DISPLAY\n" + rows.map((row) => row + "\r\n").join("")],
    means: [spec(...rows)]
  },
  {
    rule: "A DISPLAY before OK and GRID: drawn at its own size until GRID comes",
    seen: [{ implementation: ribhuhooja, captured: true }],
    start: "new",
    example: ["DISPLAY\n" + rows.join("\n"), "OK A", "GRID 3 5", "GOLD 0 0 250"],
    means: ["OK A", "GRID 3 5", "GOLD 0 0 250", spec(...rows)]
  },
  {
    rule: "DISPLAY \\n: a space between the type word and the newline",
    seen: [{ implementation: binaryBrigade, source: "game/game.c:411 and :453", captured: true }],
    start: "joined",
    example: ["DISPLAY \n" + rows.map((row) => row + "\n").join("")],
    means: [spec(...rows)]
  },
  {
    rule: "GRID written columns first (GRID 5 3 for a 3x5 map), before OK: the DISPLAY's own shape wins",
    seen: [{ implementation: nunchuck, source: "serverCmds.c joinUser: GRID (:325) before OK (:364), nrows from the x of the map's size", captured: true }],
    start: "new",
    example: ["GRID 5 3", "OK A", "GOLD 0 0 250", spec(...rows)],
    means: ["OK A", "GRID 3 5", "GOLD 0 0 250", spec(...rows)]
  },
  {
    rule: "GRID one larger each way than the DISPLAY (GRID 4 6 for 3x5 views): the DISPLAY's own shape wins",
    seen: [unnamed],
    start: "new",
    example: ["OK A", "GRID 4 6", "GOLD 0 0 250", spec(...rows)],
    means: ["OK A", "GRID 3 5", "GOLD 0 0 250", spec(...rows)]
  },
  {
    rule: "A DISPLAY larger than GRID by blank padding: rows padded with spaces, and a blank last row",
    seen: [{ implementation: ryanxyong, source: "common/grid.c:161 (rows 0..numRows, columns 0..numCols) and :91 (numCols one more than the map)", captured: true }],
    start: "joined",
    example: [spec(...rows.map((row) => row + " "), "      ")],
    means: [spec(...rows)]
  },
  {
    rule: "A player's DISPLAY on one line: GRID's rows joined by single spaces, reshaped by GRID's width",
    seen: [unnamed],
    start: "joined",
    example: ["DISPLAY " + rows.map((row) => row + " ").join("")],
    means: [spec(...rows)]
  },
  {
    rule: "A player's DISPLAY on one line of rows one narrower than GRID (GRID 8 15, then 8 rows of 14 and a space each): cut at that width",
    seen: [unnamedLater],
    start: "joined",
    example: ["DISPLAY " + narrow.map((row) => row + " ").join("")],
    means: [spec(...narrow)]
  },
  {
    rule: "OK with a lower-case letter: OK a is player A",
    seen: [{ implementation: danieldong, source: "server/server.c:280, handlePlayMessage: game.numPlayers + 'a'", captured: true }],
    start: "new",
    example: ["OK a", "GRID 3 5", "GOLD 0 0 250", spec(...rows)],
    means: ["OK A", "GRID 3 5", "GOLD 0 0 250", spec(...rows)]
  },
  {
    rule: "The player's own spot drawn as its letter, with no @: the letter is taken as @",
    seen: [unnamed],
    start: "joined",
    example: [spec("+---+", "|.A*|", "+---+")],
    means: [spec(...rows)]
  },
  {
    rule: "The player's own spot not drawn at all (gold, or another player, drawn over it): a view with no position",
    seen: [
      { implementation: danieldong, source: "grid/grid.c gridPrint draws gold over players; gridMakeMaster drops two piles on one spot", captured: true },
      { implementation: binaryBrigade, source: "game/game.c:93-94 drops a player where another stands" }
    ],
    start: "joined",
    example: [spec("+---+", "|..*|", "+---+")],
    means: [spec("+---+", "|..*|", "+---+")]
  },
  {
    rule: "A one-line message ending with a newline",
    seen: [
      { implementation: nitya, source: "server.c:408, :429 (QUIT, ERROR)", captured: true },
      { implementation: ribhuhooja },
      { implementation: danieldong, source: "server/server.c (QUIT, ERROR)" }
    ],
    start: "joined",
    example: ["GOLD 4 4 246\n", "QUIT Thanks for playing!\n"],
    means: ["GOLD 4 4 246", "QUIT Thanks for playing!"]
  },
  {
    rule: "A message type followed by a stop: ERROR.",
    seen: [{ implementation: nitya, source: "server.c:408" }],
    start: "joined",
    example: ["ERROR. Invalid keystroke.\n"],
    means: ["ERROR Invalid keystroke."],
    note: ReaderNote.ServerSaid({ refusal: "Error", text: "Invalid keystroke." })
  },
  {
    rule: "More than one space, or a tab, between numbers",
    seen: [{ implementation: danieldong, source: "server/server.c sendGridMessage: \"GRID  10 30\"", captured: true }],
    start: "joined",
    example: ["GOLD 4  4\t246"],
    means: ["GOLD 4 4 246"]
  },
  {
    rule: "GOLD 0 -1 r to the spectator: it has no purse",
    seen: [{ implementation: nunchuck, source: "serverCmds.c:491", captured: true }],
    start: "spectator",
    example: ["GRID 3 5", "GOLD 0 -1 250"],
    means: ["GRID 3 5", "GOLD 0 0 250"]
  },
  {
    rule: "The 2021 dialect's game over: QUIT GAME OVER: and the summary",
    seen: [
      { implementation: zhouselena, captured: true },
      { implementation: ribhuhooja, captured: true },
      { implementation: nitya, captured: true },
      { implementation: hemlock, source: "server/server.c:660", captured: true }
    ],
    start: "joined",
    example: ["QUIT GAME OVER:\nA       5 Alice"],
    means: ["GAMEOVER\nA       5 Alice"]
  },
  {
    rule: "QUIT GAME OVER: \\n, a space before the newline, and QUIT GAME OVER\\n, no colon",
    seen: [
      { implementation: nunchuck, source: "common/gameInfo.c:430", captured: true },
      { implementation: willDinauer, source: "server/server.c:585", captured: true }
    ],
    start: "joined",
    example: ["QUIT GAME OVER: \nA 5 Alice\n"],
    means: ["GAMEOVER\nA 5 Alice\n"]
  },
  {
    rule: "QUIT GAME OVER: with no summary at all (no player left to list)",
    seen: [{ implementation: zhouselena }],
    start: "joined",
    example: ["QUIT GAME OVER:"],
    means: ["GAMEOVER\n"]
  },
  {
    rule: "Summary lines with tabs: L\\tpurse name, L \\tpurse \\tname, L\\tpurse\\tname",
    seen: [
      { implementation: danieldong, source: "server/server.c:773", captured: true },
      { implementation: nunchuck, source: "common/gameInfo.c:431", captured: true },
      { implementation: willDinauer, source: "server/server.c:607, buildGameOverString", captured: true }
    ],
    start: "joined",
    example: ["QUIT GAME OVER:\nA\t  5 Alice\nB \t7 \tBob\nC\t0\tCarol\n"],
    means: ["GAMEOVER\nA 5 Alice\nB 7 Bob\nC 0 Carol\n"]
  },
  {
    rule: "Summary lines written letter, name, purse: A\\talice 250",
    seen: [unnamed],
    start: "joined",
    example: ["QUIT GAME OVER:\nA\talice 250\n"],
    means: ["GAMEOVER\nA 250 alice\n"]
  },
  {
    rule: "Summary lines written name, letter, purse",
    seen: [{ implementation: aadil, captured: true }],
    start: "joined",
    example: ["GAMEOVER\nalice      A 250  \n"],
    means: ["GAMEOVER\nA 250 alice\n"]
  },
  {
    rule: "ERROR where the spec says NO (the 2021 dialect)",
    seen: [
      { implementation: zhouselena },
      { implementation: ribhuhooja },
      { implementation: nitya },
      { implementation: hemlock },
      { implementation: ryanxyong },
      { implementation: danieldong, source: "server/server.c:496, and a move into a wall: ERROR Player cannot make this move" }
    ],
    start: "joined",
    example: ["ERROR unknown keystroke."],
    means: ["NO unknown keystroke."],
    note: ReaderNote.ServerSaid({ refusal: "Error", text: "unknown keystroke." })
  },
  {
    rule: "QUIT (or ERROR) as the refusal of a PLAY: before we are in, it is a refusal, not a goodbye",
    seen: [{ implementation: zhouselena }, { implementation: ribhuhooja }, { implementation: nitya, source: "server.c:747" }],
    start: "new",
    example: ["QUIT Game is full: no more players can join.\n"],
    means: ["NO Game is full: no more players can join."]
  },
  {
    rule: "A bare QUIT, with no reason",
    seen: [{ implementation: aadil, captured: true }],
    start: "joined",
    example: ["QUIT"],
    means: ["QUIT "]
  },
  {
    rule: "GOLDSTEAL n p r L, one server's news of a theft: our purse p, r left, a note of who took what",
    seen: [{ implementation: zhouselena }],
    start: "joined",
    example: ["GOLDSTEAL -1 9 200 B"],
    means: ["GOLD 0 9 200"],
    note: ReaderNote.TookFromYou({ by: "B", n: 1 })
  },
  {
    rule: "A GOLD with more nuggets left than one already read is older, overtaken on the way: ignored",
    seen: [],
    start: "joined",
    example: ["GOLD 12 12 238", "GOLD 0 0 245"],
    means: ["GOLD 12 12 238"]
  }
]

/**
 * What servers do, rather than write, that our client and bots cope with: each is played
 * in `test/variations.test.ts` by the client's state machine.
 */
export const habits: ReadonlyArray<{ readonly rule: string; readonly seen: ReadonlyArray<Sighting> }> = [
  {
    rule: "No answer at all to an unknown key, Ctrl-L included: silence after a key the user typed that moves nothing means nothing",
    seen: [
      { implementation: binaryBrigade, source: "game/game.c:183" },
      { implementation: nunchuck, source: "network.c:354-362" },
      { implementation: willDinauer, source: "server/serverUtils.c validateAction" },
      { implementation: hemlock, source: "server/server.c:430-433, to the spectator" },
      { implementation: aadil, source: "server.c:190-199, to the spectator" },
      unnamed
    ]
  },
  {
    rule: "A crash at a key other than Q from the spectator while no player is in: the spectator sends only what its user types",
    seen: [{ implementation: willDinauer, source: "server/server.c:313-355: the spectator's key moves the player findPlayerITR never found" }]
  },
  {
    rule: "No answer to a move into a wall: only a move the view says is possible must be answered",
    seen: [{ implementation: ribhuhooja }, { implementation: zhouselena }, { implementation: hemlock }, { implementation: binaryBrigade }, {
      implementation: willDinauer
    }]
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
    rule: "A DISPLAY on one line that is not GRID's rows joined by spaces",
    example: "DISPLAY\n+---+|.@*|+---+",
    note: ReaderNote.BadDisplay({ reason: "the DISPLAY is one line of 15 characters, not GRID's 3 rows" })
  },
  {
    rule: "A player's GOLD that counts nuggets below zero",
    example: "GOLD 0 -1 250",
    note: ReaderNote.BadMessage({ kind: "malformed", reason: "GOLD 0 -1 250 counts nuggets below zero" })
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
