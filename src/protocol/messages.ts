import { Data, Either } from "effect"
import type { Request } from "../core/state.js"
import { fitsInDatagram } from "./display.js"

/**
 * The network protocol: one message per datagram, ASCII text whose first word (ended by a
 * space, a newline or the end) names its type. Parsers here are total: any bytes give
 * either a message or a `ProtocolError` saying why not.
 */

export class ProtocolError extends Data.TaggedError("ProtocolError")<{
  /** "unknown": not a message of this direction at all; "malformed": a known type, badly formed. */
  readonly kind: "unknown" | "malformed"
  readonly reason: string
}> {
  override get message() {
    return this.reason
  }
}

// ---- Client to server ----

/** The protocol's client messages are the core's requests: PLAY, SPECTATE, KEY. */
export type ClientMessage = Request

const decoder = new TextDecoder("utf-8")

/** A datagram's bytes as text (UTF-8, a bad byte shown as U+FFFD): for log lines and tests. */
export const datagramText = (datagram: Uint8Array): string => decoder.decode(datagram)

/**
 * Printable ASCII for a log line or a refusal's words: control chars and non-ASCII shown as
 * escapes, long text cut. Refusals quote it, and every message must be ASCII.
 */
export const excerpt = (text: string, max = 60): string => {
  const shown = JSON.stringify(text.length > max ? text.slice(0, max) : text)
    .replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`)
  return text.length > max ? `${shown}... (${text.length} chars)` : shown
}

const firstWord = (text: string): { readonly word: string; readonly rest: string | undefined } => {
  const end = text.search(/[ \n]/)
  return end === -1 ? { word: text, rest: undefined } : { word: text.slice(0, end), rest: text.slice(end + 1) }
}

/** `KEY k` for each printable ASCII k, decoded once: the message every keystroke sends. */
const keyMessages: ReadonlyArray<Either.Either<ClientMessage, ProtocolError>> = Array.from(
  { length: 0x7f },
  (_, code) => Either.right({ _tag: "Key", key: String.fromCharCode(code) })
)

const isPlainKey = (datagram: Uint8Array) =>
  datagram.length === 5 && datagram[0] === 0x4b && datagram[1] === 0x45 && datagram[2] === 0x59 &&
  datagram[3] === 0x20 && datagram[4]! >= 0x20 && datagram[4]! < 0x7f

export const decodeClientMessage = (datagram: Uint8Array): Either.Either<ClientMessage, ProtocolError> => {
  if (isPlainKey(datagram)) return keyMessages[datagram[4]!]!
  if (datagram.length === 0) return Either.left(new ProtocolError({ kind: "unknown", reason: "empty datagram" }))
  // A trailing line end (from `nc` or a hand-typed test) is not part of the message.
  const text = decoder.decode(datagram).replace(/\r?\n$/, "")
  const { word, rest } = firstWord(text)
  switch (word) {
    case "PLAY":
      return Either.right({ _tag: "Play", name: rest ?? "" })
    case "SPECTATE":
      return Either.right({ _tag: "Spectate" })
    case "KEY": {
      const keys = Array.from(rest ?? "")
      if (keys.length !== 1) {
        return Either.left(
          new ProtocolError({
            kind: "malformed",
            reason: `KEY takes exactly one keystroke, got ${keys.length === 0 ? "none" : excerpt(rest ?? "")}`
          })
        )
      }
      return Either.right({ _tag: "Key", key: keys[0]! })
    }
    default:
      return Either.left(new ProtocolError({ kind: "unknown", reason: `unknown message type ${excerpt(word, 20)}` }))
  }
}

export const encodeClientMessage = (message: ClientMessage): string => {
  switch (message._tag) {
    case "Play":
      return `PLAY ${message.name}`
    case "Spectate":
      return "SPECTATE"
    case "Key":
      return `KEY ${message.key}`
  }
}

// ---- Server to client ----

export type ServerMessage =
  | { readonly _tag: "Ok"; readonly letter: string }
  | { readonly _tag: "No"; readonly reason: string }
  | { readonly _tag: "Error"; readonly reason: string }
  | { readonly _tag: "Grid"; readonly rows: number; readonly cols: number }
  | { readonly _tag: "Gold"; readonly collected: number; readonly purse: number; readonly remaining: number }
  | { readonly _tag: "Display"; readonly grid: string }
  | { readonly _tag: "Quit"; readonly reason: string }
  | { readonly _tag: "GameOver"; readonly summary: string }
  /**
   * Not the spec's: one CS50 server's news of a theft, `GOLDSTEAL n p r L`: we took n
   * nuggets from player L (n > 0), L took -n from us (n < 0), or L had none (n = 0); our
   * purse is now p and r nuggets are left.
   */
  | {
    readonly _tag: "GoldSteal"
    readonly change: number
    readonly purse: number
    readonly remaining: number
    readonly other: string
  }

/** Each server message's type word, as the spec names it (`GOLDSTEAL` is one CS50 server's own). */
export const serverMessageWord = {
  Ok: "OK",
  No: "NO",
  Error: "ERROR",
  Grid: "GRID",
  Gold: "GOLD",
  Display: "DISPLAY",
  Quit: "QUIT",
  GameOver: "GAMEOVER",
  GoldSteal: "GOLDSTEAL"
} as const satisfies Readonly<Record<ServerMessage["_tag"], string>>

/** The type words of the spec's own server messages. */
export const specServerWords: ReadonlySet<string> = new Set(Object.values(serverMessageWord).filter((word) => word !== serverMessageWord.GoldSteal))

/** The text of a message; `dialect.ts` chooses which message a dialect sends. */
export const encodeServerMessage = (message: ServerMessage): string => {
  switch (message._tag) {
    case "Ok":
      return `OK ${message.letter}`
    case "No":
      return message.reason ? `NO ${message.reason}` : "NO"
    case "Error":
      return `ERROR ${message.reason}`
    case "Grid":
      return `GRID ${message.rows} ${message.cols}`
    case "Gold":
      return `GOLD ${message.collected} ${message.purse} ${message.remaining}`
    case "Display":
      return `DISPLAY\n${message.grid}`
    case "Quit":
      return message.reason ? `QUIT ${message.reason}` : "QUIT"
    case "GameOver":
      return `GAMEOVER\n${message.summary}`
    case "GoldSteal":
      return `GOLDSTEAL ${message.change} ${message.purse} ${message.remaining} ${message.other}`
  }
}

const numbers = (text: string, count: number, signed = false): ReadonlyArray<number> | undefined => {
  const parts = text.trim().split(/\s+/)
  const number = signed ? /^-?\d{1,9}$/ : /^\d{1,9}$/
  if (parts.length !== count || !parts.every((part) => number.test(part))) return undefined
  return parts.map(Number)
}

const malformed = (reason: string) => Either.left(new ProtocolError({ kind: "malformed", reason }))

/** The message types a server sends, for telling `ERROR.` (a type and a stop) from a word we do not know. */
const serverTypes: ReadonlySet<string> = new Set(Object.values(serverMessageWord))

/** A type word as some servers write it: followed by a stop, colon or comma (`ERROR. Invalid keystroke.`). */
const typeOf = (word: string): string => {
  if (serverTypes.has(word)) return word
  const bare = word.replace(/[.:,;!]+$/, "")
  return serverTypes.has(bare) ? bare : word
}

/**
 * Parses what a server sent, liberally: each variation real servers send whose meaning is
 * clear is read (they are listed, with examples, in `variations.ts`). Speaks both
 * dialects: `QUIT GAME OVER:\n...` is a game over.
 */
export const decodeServerMessage = (datagram: Uint8Array | string): Either.Either<ServerMessage, ProtocolError> => {
  const text = typeof datagram === "string" ? datagram : decoder.decode(datagram)
  const { word, rest } = firstWord(text)
  // A one-line message may end with a line end; it is not part of the message.
  const line = (rest ?? "").replace(/\r?\n$/, "")
  switch (typeOf(word)) {
    case "OK": {
      // A lower-case letter (`OK a`) names the same player: the letters drawn and summed up are capitals.
      const letter = line.trim()
      return /^[A-Za-z]$/.test(letter) ? Either.right({ _tag: "Ok", letter: letter.toUpperCase() }) : malformed(`bad OK ${excerpt(line)}`)
    }
    case "NO":
      return Either.right({ _tag: "No", reason: line.trim() })
    case "ERROR":
      return Either.right({ _tag: "Error", reason: line.trim() })
    case "GRID": {
      const size = numbers(line, 2)
      if (!size) return malformed(`bad GRID ${excerpt(line)}`)
      const [rows, cols] = size as [number, number]
      if (rows < 1 || cols < 1) return malformed(`GRID ${rows}x${cols} has no gridpoints`)
      if (!fitsInDatagram(rows, cols)) return malformed(`GRID ${rows}x${cols} cannot fit in one datagram`)
      return Either.right({ _tag: "Grid", rows, cols })
    }
    case "GOLD": {
      // Signed: one server tells the spectator `GOLD 0 -1 250`, a purse it does not have. The reader judges.
      const values = numbers(line, 3, true)
      if (!values || values[2]! < 0) return malformed(`bad GOLD ${excerpt(line)}`)
      const [collected, purse, remaining] = values as [number, number, number]
      return Either.right({ _tag: "Gold", collected, purse, remaining })
    }
    case "GOLDSTEAL": {
      const [change, purse, remaining, other] = line.trim().split(/\s+/)
      const values = numbers(`${change} ${purse} ${remaining}`, 3, true)
      if (!values || values[1]! < 0 || values[2]! < 0 || !/^[A-Z]$/.test(other ?? "")) {
        return malformed(`bad GOLDSTEAL ${excerpt(line)}`)
      }
      return Either.right({ _tag: "GoldSteal", change: values[0]!, purse: values[1]!, remaining: values[2]!, other: other! })
    }
    case "DISPLAY": {
      // The grid follows the first line end, which may come after blanks (`DISPLAY \n`); with no
      // line end at all, after one space: the rows on one line, which the reader reshapes.
      const head = /^[ \t]*\r?\n/.exec(text.slice(word.length)) ?? (text.includes("\n") ? null : /^ (?=.)/.exec(text.slice(word.length)))
      if (head === null) return malformed("DISPLAY without its grid")
      return Either.right({ _tag: "Display", grid: text.slice(word.length + head[0].length) })
    }
    case "QUIT": {
      const over = /^GAME OVER:?[ \t]*(?:\r?\n|$)/.exec(rest ?? "")
      if (over) return Either.right({ _tag: "GameOver", summary: (rest ?? "").slice(over[0].length) })
      return Either.right({ _tag: "Quit", reason: line.trim() })
    }
    case "GAMEOVER":
      return Either.right({ _tag: "GameOver", summary: rest ?? "" })
    default:
      return Either.left(new ProtocolError({ kind: "unknown", reason: `unknown message type ${excerpt(word, 20)}` }))
  }
}
