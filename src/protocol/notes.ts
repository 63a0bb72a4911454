import { Data } from "effect"

/**
 * What the reader (`reader.ts`) has to tell the player on its status line, as data: the
 * kind of news, with its numbers and names. No words here: `client/status.ts` words every
 * note, long and short, for the terminal and the page alike.
 */
export type ReaderNote = Data.TaggedEnum<{
  /** GOLD: the player picked up `n` nuggets. */
  GoldReceived: { readonly n: number }
  /** The steal variant: the player took `n` nuggets from the players named `from` (letters, or a GOLDSTEAL's name). */
  YouTook: { readonly n: number; readonly from: ReadonlyArray<string> }
  /** The purse shrank by `n` with no thief in sight yet. */
  TakenFromYou: { readonly n: number }
  /** The steal variant: `by` took `n` nuggets from the player. */
  TookFromYou: { readonly by: string; readonly n: number }
  /** A GOLDSTEAL that took nothing: `other` had no nuggets. */
  NothingToTake: { readonly other: string }
  /** A datagram that could not be read: the parser's kind of failure and its reason. */
  BadMessage: { readonly kind: "unknown" | "malformed"; readonly reason: string }
  /** A DISPLAY that could not be drawn, and why (`display.ts` says). */
  BadDisplay: { readonly reason: string }
  /** A GRID of another size than the first one. */
  GridChanged: { readonly rows: number; readonly cols: number; readonly firstRows: number; readonly firstCols: number }
  /** A refusal (NO, or ERROR) once in the game: the server's own words, `text`, empty when it gave none. */
  ServerSaid: { readonly refusal: "No" | "Error"; readonly text: string }
}>

export const ReaderNote = Data.taggedEnum<ReaderNote>()
