/**
 * The requirements document (the 2019 requirements spec): the sentences the kit's checks
 * cite, each by its line number in the document's text, so that every failure says which
 * sentence it breaks.
 */
export interface Requirement {
  /** A line number, or a range such as "340-342". */
  readonly line: string
  readonly text: string
}

const at = (line: string, text: string): Requirement => ({ line, text })

export const Requirements = {
  goldDropped: at("24", "At game start time, GoldTotal nuggets are randomly dropped in a random number of random-sized piles, at some spot in a room."),
  newPlayerDropped: at("26", "A new player is dropped into a random empty spot within a room."),
  sees: at("28", "A player can see only those spots that are visible from its current location."),
  knows: at("29", "A player can know the boundaries of all rooms and passages it has seen since the player began playing."),
  spectatorSeesAll: at("30", "The spectator immediately knows and always sees all gridpoints."),
  displayShows: at("32", "A player's display illustrates all known boundaries and all visible spots; the spectator's display illustrates all boundaries and spots."),
  collects: at("33", "A player moving into a spot containing a pile of gold collects that gold, adding all the pile's nuggets to the player's purse."),
  swap: at("34", "A player moving into a spot occupied by another player causes the two players to switch places."),
  endAnnounced: at("36", "At end, the game announces to all players (and spectator, if any) the size of each players' purse; the player(s), spectator, and server then quit."),
  maxBytes: at("43", "static const int MaxBytes = 65507; // max number of bytes in a message"),
  maxNameLength: at("44", "static const int MaxNameLength = 50; // max number of chars in playerName"),
  maxPlayers: at("45", "static const int MaxPlayers = 26; // maximum number of players"),
  goldTotal: at("46", "static const int GoldTotal = 250; // amount of gold in the game"),
  pileCount: at("61", "Initialize the game by dropping at least GoldMinNumPiles and at most GoldMaxNumPiles gold piles on random empty spots"),
  noRejoin: at("64", "Accept up to MaxPlayers players; if a player exits or quits the game, it can neither rejoin nor be replaced."),
  oneSpectator: at("65", "if a new spectator joins while one is active, the server shall tell the current spectator to quit, and the server shall then forget that current spectator."),
  reactToMessages: at("66", "React to each type of inbound message as described in the protocol below."),
  updateAll: at("67", "Update all clients whenever any player moves or gold is collected."),
  gameOver: at("68", "when it reaches zero, the server shall send a GAMEOVER message to all clients, print the Game-over summary, and exit."),
  truncateName: at("83", "the player shall truncate it (if necessary) to limit it to MaxNameLength characters."),
  joinAs: at("87", "Initialize the network and join the game with a PLAY or SPECTATE message accordingly."),
  windowSize: at("88", "Upon receipt of a GRID message, ensure the window is large enough for the grid"),
  statusOnTop: at("89", "Display a status line on the first line of the display"),
  gridBelow: at("90", "Display the game grid on the subsequent lines of the display"),
  updateDisplay: at("91", "Update the display any time new information arrives from the server."),
  quitWhenTold: at("92", "Quit when told to do so by the server"),
  noteOnBadMessage: at("93", "Display a brief note on the status line if an unknown or malformed message arrives from the server."),
  summaryAndExit: at("95", "Print a Game-over summary and exit"),
  tooSmall: at("107", "The player program shall complain if the window is too small, and wait for the user to enlarge the window."),
  playerStatus: at("111", "Player A has 39 nuggets (211 nuggets unclaimed)."),
  goldReceived: at("115", "Player A has 39 nuggets (211 nuggets unclaimed).  GOLD received: 39"),
  spectatorStatus: at("121", "Spectator: 211 nuggets unclaimed."),
  gridCharacters: at("124-137", "The remaining NR lines present the grid using map characters ( -|+.#) or occupant characters (@, A-Z, *)."),
  spectatorQuitKey: at("142", "The spectator can type Q quit the game."),
  moveKeys: at("147-157", "Q quit; h l j k y u b n move one step, if possible: the adjacent gridpoint in the given direction is an empty spot, a pile of gold, or another player."),
  runKeys: at("158", "the corresponding Capitalized character will move as far as possible automatically and repeatedly in that direction, until it is no longer possible."),
  visibility: at("232-237", "A gridpoint on the same row or column is visible if all intervening gridpoints are spots; otherwise it is visible only if no pair of gridpoints the line passes between are both not empty spots."),
  oneMessage: at("318-319", "Our game sends one message in each datagram. Each message is an ASCII string (text)."),
  oneLine: at("320", "Most messages are on one line and have no terminating newline."),
  firstWord: at("323-325", "The first word of the message indicates the type of message. Message types are in ALL CAPS."),
  play: at("335-337", "PLAY realname: everything after the PLAY and one space is captured as the player's real name."),
  nameLength: at("338", "The player shall ensure realname is less than MaxNameLength characters long."),
  gameFull: at("340-342", "If there are already MaxPlayers clients, the game server shall respond with NO"),
  ok: at("344-348", "Otherwise, the server shall respond with OK L, where L is this player's letter in the set {A, B, ... Z}."),
  thenGridAndGold: at("350", "The server shall then immediately send GRID and GOLD messages"),
  key: at("354-356", "KEY k, where k is the single-character keystroke typed by the user."),
  goldToAll: at("358", "When the player's keystroke causes them to collect gold, the server shall inform all clients using a GOLD message"),
  moveToAll: at("360", "When the player's keystroke causes them to move to a new spot, the server shall inform all clients of a change in the game grid."),
  spectate: at("366", "SPECTATE"),
  replaceSpectator: at("369-371", "If there is already a spectator, this spectator takes its place (the server sends a QUIT message to the prior spectator, then forgets it)."),
  spectatorGridGold: at("373-375", "The server shall respond with a GRID message. The server shall then immediately send a GOLD message."),
  spectatorNotShown: at("377", "The spectator is not assigned a letter and is not represented on the map."),
  spectatorView: at("379", "Subsequent DISPLAY messages will include a complete view, as if this client knows all and sees all."),
  grid: at("383-388", "The server shall send immediately to new clients GRID nrows ncols; this size will never change."),
  display: at("390-396", "DISPLAY\\nstring: string has nrows lines, each of which has ncols characters plus a newline."),
  displayPerClient: at("397", "players' displays show only the boundaries they know and the spots visible from their current position, and the player's own position is represented by @."),
  gold: at("402-405", "GOLD n p r: it has just collected n gold nuggets, its purse now has p gold nuggets, and there remain r nuggets left to be found."),
  spectatorGold: at("408", "The spectator shall always receive n=0, p=0."),
  quit: at("412-414", "QUIT, upon which the client should not send any more messages and shall exit."),
  gameOverMessage: at("418-420", "GAMEOVER\\nsummary, where summary shall be a printable, multi-line string summarizing the purses of the game."),
  summaryLines: at("421", "The summary shall include one line per player, with player Letter, purse (gold nugget count), and player real name, in tabular form."),
  printSummary: at("422", "After receiving a GAMEOVER message the client shall print the summary and shall exit."),
  no: at("424-429", "The server may send, in response to the client, NO ... to indicate it was unable to understand or handle the client's prior message."),
  showNo: at("430", "The client shall present this text to its user on the display's status line.")
} as const satisfies Record<string, Requirement>

/** "spec line 350: The server shall ..." (people call the document "the spec"). */
export const citation = (requirement: Requirement): string => `spec line ${requirement.line}: ${requirement.text}`
