import { Either } from "effect"
import { type GridSize, parseDisplayGrid } from "../../protocol/display.js"
import { decodeClientMessage, decodeServerMessage, type ServerMessage, specServerWords } from "../../protocol/messages.js"
import { MaxNameLength } from "../../core/constants.js"
import { gameOverDialect, gameOverWords } from "../../protocol/dialect.js"
import { escaped } from "./escaping.js"
import { Requirements, type Requirement } from "./requirements.js"

// For the files that still import it from here (the probe and the scripted server): their home is escaping.ts.

/**
 * What one side of a conversation says, held against the spec: each message decoded into a
 * short line for people, and flagged where it breaks the spec. The proxy's timeline and
 * `check server` read the wire through this.
 */

/**
 * Which check a flag belongs to: the message's framing, a GOLD's numbers, the summary,
 * who is drawn where (an @ for the player itself), a welcome's form (judged where the client
 * joins, once), or anything else.
 */
export type Topic = "framing" | "gold" | "summary" | "message" | "occupants" | "welcome"

export interface Flag {
  readonly topic: Topic
  readonly reason: string
  readonly spec: Requirement
}

/** What one client and the server have said to each other so far. */
export interface Conversation {
  readonly role: "player" | "spectator" | undefined
  /** The player's letter, once OK gave it. */
  readonly letter?: string
  /** DISPLAYs it has had. */
  readonly displays?: number
  readonly grid: GridSize | undefined
  /** The player's purse in the latest GOLD. */
  readonly purse: number | undefined
  /** Nuggets left in the latest GOLD. */
  readonly remaining: number | undefined
  /** When the client heard the server tell it to quit (QUIT, or the game is over), in ms. */
  readonly toldToQuitAt: number | undefined
}

export const newConversation: Conversation = {
  role: undefined,
  grid: undefined,
  purse: undefined,
  remaining: undefined,
  toldToQuitAt: undefined
}

/**
 * A message in flight when the client heard QUIT is not its fault: it had this long to stop.
 * The relay times a datagram when it takes it, which on a busy machine is hundreds of ms
 * after it came (a bot's last key, sent before the GAMEOVER reached it, was flagged); a
 * client that goes on after QUIT goes on for longer than this.
 */
const quitGraceMs = 1000

/** The client has now heard `bytes`; a QUIT or a game over tells it to stop sending. */
export const heard = (conversation: Conversation, bytes: Uint8Array, at: number): Conversation =>
  conversation.toldToQuitAt === undefined && /^(QUIT|GAMEOVER)\b/.test(decoder.decode(bytes.subarray(0, 8)))
    ? { ...conversation, toldToQuitAt: at }
    : conversation

export interface Linted {
  readonly conversation: Conversation
  /** The message decoded, in a line: `KEY h`, `DISPLAY 21x79, @ at 4,12`. */
  readonly summary: string
  readonly flags: ReadonlyArray<Flag>
}

const decoder = new TextDecoder("latin1")

const flag = (topic: Topic, reason: string, spec: Requirement): Flag => ({ topic, reason, spec })

const isAscii = (bytes: Uint8Array) => bytes.every((byte) => byte < 0x80)

/** A client's message (PLAY, SPECTATE, KEY), sent at `at` ms, held against the spec. */
export const lintClientMessage = (conversation: Conversation, bytes: Uint8Array, at = 0): Linted => {
  const text = decoder.decode(bytes)
  const flags: Array<Flag> = []
  if (!isAscii(bytes)) flags.push(flag("message", "the message is not ASCII text", Requirements.oneMessage))
  const told = conversation.toldToQuitAt
  if (told !== undefined && at - told > quitGraceMs) {
    flags.push(flag("message", `the client sent this ${Math.round(at - told)} ms after it heard the server tell it to quit`, Requirements.quit))
  }
  const decoded = decodeClientMessage(bytes)
  if (Either.isLeft(decoded)) {
    const spec = decoded.left.kind === "unknown" ? Requirements.firstWord : Requirements.key
    return { conversation, summary: `?? ${escaped(text)}`, flags: [...flags, flag("message", decoded.left.reason, spec)] }
  }
  const message = decoded.right
  if (/\r?\n$/.test(text)) {
    flags.push(flag("message", "the message ends with a line end, which is then part of it", message._tag === "Key" ? Requirements.key : Requirements.play))
  }
  switch (message._tag) {
    case "Play": {
      const length = Array.from(message.name).length
      if (length > MaxNameLength) flags.push(flag("message", `the name is ${length} characters, more than ${MaxNameLength}`, Requirements.truncateName))
      return { conversation: { ...conversation, role: "player" }, summary: `PLAY ${escaped(message.name)}`, flags }
    }
    case "Spectate":
      return { conversation: { ...conversation, role: "spectator" }, summary: "SPECTATE", flags }
    case "Key":
      return { conversation, summary: `KEY ${keyName(message.key)}`, flags }
  }
}

/** A key as people write it: `h`, `^L` for Ctrl-L, escapes for the rest. */
const keyName = (key: string): string => {
  const code = key.charCodeAt(0)
  if (key.length === 1 && code < 0x20) return `^${String.fromCharCode(code + 0x40)}`
  return /^[\x21-\x7e]$/.test(key) ? key : escaped(key)
}

const letters = (rows: ReadonlyArray<string>, char: string) => {
  let count = 0
  for (const row of rows) for (const each of row) if (each === char) count++
  return count
}

const whereIs = (rows: ReadonlyArray<string>, char: string) => {
  for (const [row, line] of rows.entries()) if (line.includes(char)) return `${row},${line.indexOf(char)}`
  return undefined
}

const gridCharacters = /^[ \-|+.#@*A-Z]*$/

/** How a DISPLAY's shape differs from GRID's, in words that say what happened. */
const shapeDefect = (grid: string, said: GridSize, reason: string): string => {
  const rows = grid.split("\n")
  if (rows.at(-1) === "") rows.pop()
  if (rows[0] === "") rows.shift()
  const widths = new Set(rows.map((row) => row.length))
  if (widths.size !== 1) return reason
  const cols = rows[0]!.length
  const blank = (text: string) => /^ *$/.test(text)
  if (rows.length === said.cols && cols === said.rows && (rows.length !== said.rows || cols !== said.cols)) {
    return `the DISPLAY is ${rows.length}x${cols}, GRID said ${said.rows}x${said.cols}: GRID's numbers are the other way round`
  }
  if (rows.length === 1 && said.rows > 1) return `the DISPLAY is one line of ${cols} characters, not GRID's ${said.rows} rows`
  const parts: Array<string> = []
  if (cols > said.cols) parts.push(`its rows are ${cols} characters, longer than GRID's ${said.cols} columns${rows.every((row) => blank(row.slice(said.cols))) ? " (padded with blanks)" : ""}`)
  if (cols < said.cols) parts.push(`its rows are ${cols} characters, shorter than GRID's ${said.cols} columns`)
  if (rows.length > said.rows) parts.push(`it has ${rows.length} rows, more than GRID's ${said.rows}${rows.slice(said.rows).every(blank) ? " (the extra blank)" : ""}`)
  if (rows.length < said.rows) parts.push(`it has ${rows.length} rows, fewer than GRID's ${said.rows}`)
  return parts.length === 0 ? reason : `the DISPLAY is ${rows.length}x${cols}, GRID said ${said.rows}x${said.cols}: ${parts.join("; ")}`
}

const lintDisplay = (conversation: Conversation, grid: string): { summary: string; flags: Array<Flag> } => {
  const flags: Array<Flag> = []
  // Judged where the client joins, once.
  if (conversation.grid === undefined) flags.push(flag("welcome", "DISPLAY came before any GRID", Requirements.grid))
  const rows = parseDisplayGrid(grid, conversation.grid)
  if (Either.isLeft(rows)) {
    const said = conversation.grid
    flags.push(flag("framing", said === undefined ? rows.left : shapeDefect(grid, said, rows.left), Requirements.display))
    return { summary: `DISPLAY (${grid.length} bytes of grid)`, flags }
  }
  const lines = rows.right
  if (grid !== lines.map((line) => `${line}\n`).join("")) {
    flags.push(flag("framing", "the DISPLAY's rows are not each ended by one newline", Requirements.display))
  }
  const odd = lines.findIndex((line) => !gridCharacters.test(line))
  const char = Array.from(lines[odd] ?? "").find((each) => !gridCharacters.test(each))
  if (char !== undefined) {
    flags.push(flag("framing", `row ${odd} holds ${escaped(char)}, not a map or occupant character`, Requirements.gridCharacters))
  }
  const selves = letters(lines, "@")
  if (conversation.role === "spectator" && selves > 0) {
    flags.push(flag("occupants", "the spectator's DISPLAY shows an @", Requirements.spectatorNotShown))
  }
  const own = conversation.letter
  // A new player dropped on a pile, shown under it: judged with where it was dropped, once.
  const droppedOnGold = (conversation.displays ?? 0) === 0 && (conversation.purse ?? 0) > 0
  if (conversation.role === "player" && selves === 0 && droppedOnGold) {
    flags.push(flag("welcome", "a new player's first DISPLAY does not show it: gold is drawn where it was dropped", Requirements.newPlayerDropped))
  } else if (conversation.role === "player" && selves === 0 && own !== undefined && letters(lines, own) === 1) {
    flags.push(flag("occupants", `player ${own}'s DISPLAY draws it as its letter ${own}, not @`, Requirements.displayPerClient))
  } else if (conversation.role === "player" && selves !== 1) {
    flags.push(flag("occupants", `a player's DISPLAY shows ${selves} @ (one expected)${selves === 0 ? ": something else is drawn where it stands" : ""}`, Requirements.displayPerClient))
  }
  const at = whereIs(lines, "@")
  return { summary: `DISPLAY ${lines.length}x${lines[0]?.length ?? 0}${at ? `, @ at ${at}` : ""}`, flags }
}

const lintGold = (conversation: Conversation, gold: Extract<ServerMessage, { _tag: "Gold" }>): Array<Flag> => {
  const flags: Array<Flag> = []
  const { collected, purse, remaining } = gold
  if (conversation.role === "spectator" && (collected !== 0 || purse !== 0)) {
    flags.push(flag("gold", `the spectator got n=${collected} p=${purse}`, Requirements.spectatorGold))
  }
  if (conversation.role === "player" && conversation.purse !== undefined && purse !== conversation.purse + collected) {
    flags.push(flag("gold", `the purse went from ${conversation.purse} to ${purse}, but n=${collected}`, Requirements.gold))
  }
  if (conversation.remaining !== undefined && remaining > conversation.remaining) {
    flags.push(flag("gold", `nuggets left rose from ${conversation.remaining} to ${remaining}`, Requirements.gold))
  }
  return flags
}

const summaryOf = (summary: string): string => {
  const rows = summary.split("\n").filter((row) => row.trim() !== "")
  return `${rows.length} line${rows.length === 1 ? "" : "s"}: ${escaped(rows.join(" / "), 80)}`
}

/** The spec's exact form of each one-line message: one space between words, no line end. */
const exactForms: Partial<Record<ServerMessage["_tag"], RegExp>> = {
  Ok: /^OK [A-Z]$/,
  Grid: /^GRID \d+ \d+$/,
  // A number below zero is GOLD's arithmetic, judged with the others.
  Gold: /^GOLD -?\d+ -?\d+ -?\d+$/
}

/** OK's form is judged where a client joins; the rest by the form of all messages. */
const formTopic = (message: ServerMessage): Topic => (message._tag === "Ok" ? "welcome" : "message")

/** What our reader understands but the spec does not write so: a type word with a stop, a line end, extra spaces. */
const strictForm = (text: string, message: ServerMessage): Array<Flag> => {
  const flags: Array<Flag> = []
  const [word = ""] = text.split(/[ \n]/, 1)
  const multiLine = message._tag === "Display" || message._tag === "GameOver"
  if (message._tag === "GoldSteal") {
    flags.push(flag("message", "GOLDSTEAL is not a message type of the spec", Requirements.firstWord))
  } else if (!specServerWords.has(word)) {
    flags.push(flag("message", `the type word ${escaped(word)} is not ended by a space, a newline or the end`, Requirements.firstWord))
  }
  if (!multiLine && text.includes("\n")) flags.push(flag("message", "a one-line message ends with a newline", Requirements.oneLine))
  const exact = exactForms[message._tag]
  if (exact && !text.includes("\n") && !exact.test(text)) flags.push(flag(formTopic(message), `not in the spec's form: ${escaped(text, 40)}`, Requirements.firstWord))
  return flags
}

/** A server's message to a client held against the spec, given what came before. */
export const lintServerMessage = (conversation: Conversation, bytes: Uint8Array): Linted => {
  const text = decoder.decode(bytes)
  const flags: Array<Flag> = []
  if (!isAscii(bytes)) flags.push(flag("message", "the message is not ASCII text", Requirements.oneMessage))
  const decoded = decodeServerMessage(text)
  if (Either.isLeft(decoded)) {
    const word = text.split(/[ \n]/, 1)[0]
    const spec = decoded.left.kind === "unknown"
      ? Requirements.firstWord
      : word === "GRID" ? Requirements.grid : word === "GOLD" ? Requirements.gold : word === "DISPLAY" ? Requirements.display : Requirements.ok
    return { conversation, summary: `?? ${escaped(text)}`, flags: [...flags, flag(word === "DISPLAY" || word === "GRID" ? "framing" : "message", decoded.left.reason, spec)] }
  }
  const message = decoded.right
  flags.push(...strictForm(text, message))
  switch (message._tag) {
    case "GoldSteal":
      // The purse it tells is the one later GOLDs add to.
      return {
        conversation: { ...conversation, purse: message.purse, remaining: message.remaining },
        summary: `GOLDSTEAL ${message.change} ${message.purse} ${message.remaining} ${message.other}`,
        flags
      }
    case "Ok":
      if (conversation.role === "spectator") flags.push(flag("welcome", "OK sent to the spectator", Requirements.spectatorNotShown))
      return { conversation: { ...conversation, letter: message.letter }, summary: `OK ${message.letter}`, flags }
    case "No":
    case "Error":
      return { conversation, summary: `${message._tag.toUpperCase()} ${escaped(message.reason)}`, flags }
    case "Grid": {
      const grid = { rows: message.rows, cols: message.cols }
      const first = conversation.grid
      if (first && (first.rows !== grid.rows || first.cols !== grid.cols)) {
        flags.push(flag("framing", `GRID ${grid.rows}x${grid.cols} differs from the first, ${first.rows}x${first.cols}`, Requirements.grid))
      }
      return { conversation: { ...conversation, grid: first ?? grid }, summary: `GRID ${grid.rows}x${grid.cols}`, flags }
    }
    case "Gold":
      return {
        conversation: { ...conversation, purse: message.purse, remaining: message.remaining },
        summary: `GOLD n=${message.collected} p=${message.purse} r=${message.remaining}`,
        flags: [...flags, ...lintGold(conversation, message)]
      }
    case "Display": {
      const display = lintDisplay(conversation, message.grid)
      const next = { ...conversation, displays: (conversation.displays ?? 0) + 1 }
      // A DISPLAY all on one line is that one defect (see `shapeDefect`), not a second about its first line.
      if (!text.startsWith("DISPLAY\n") && message.grid.includes("\n")) {
        display.flags.push(flag("framing", `the DISPLAY begins ${escaped(text.slice(0, text.indexOf("\n") + 1 || 9), 20)}, not DISPLAY and a newline`, Requirements.display))
      }
      return { conversation: next, summary: display.summary, flags: [...flags, ...display.flags] }
    }
    case "Quit":
      return { conversation, summary: `QUIT ${escaped(message.reason)}`, flags }
    case "GameOver": {
      if (!/^[\x20-\x7e\n\t\r]*$/.test(message.summary)) {
        flags.push(flag("summary", "the summary holds characters that are not printable", Requirements.gameOverMessage))
      }
      if (!/^(GAMEOVER|QUIT GAME OVER:)\n/.test(text) && !/^QUIT GAME OVER:$/.test(text)) {
        const head = text.slice(0, text.indexOf("\n") + 1 || text.length)
        flags.push(flag("message", `the game over begins ${escaped(head, 30)}, not GAMEOVER\\n, nor QUIT GAME OVER:\\n as the 2021 dialect writes it`, Requirements.gameOverMessage))
      }
      return { conversation, summary: `${gameOverWords[gameOverDialect(text)]} ${summaryOf(message.summary)}`, flags }
    }
  }
}
