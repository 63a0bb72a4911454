import { Data } from "effect"
import { nuggetCount } from "../protocol/dialect.js"
import type { ReaderNote } from "../protocol/notes.js"
import type { GameReport } from "../protocol/reader.js"

/**
 * The words of the status line, for the terminal (`screen.ts`) and the page (`web/page/`)
 * alike: the spec's status, and every note, each in its forms from the most words to the
 * fewest. The notes themselves are data (what happened, with its numbers and names); this
 * is the one place they become words. No node imports: the page is bundled from this.
 */

/** What the client itself has to tell, besides the news the reader notes (`protocol/notes.ts`). */
export type ClientNote = Data.TaggedEnum<{
  /** The client's own questions to the server went unanswered. */
  NotAnswering: {}
  /** The system said that nothing listens at the server's port any more. */
  PortClosed: {}
  /** The server refused us as a stranger: our address changed (a NAT), and only joining again helps. */
  AddressChanged: {}
  /** Q with friends in the game this process hosts: a second Q ends it for everyone. */
  QuitAsksAgain: {}
  /** Ctrl-Z with friends in the game this process hosts: stopping it would freeze their game. */
  NoSuspendWithFriends: {}
  /** Ctrl-Z did not stop the process: no shell with job control. */
  CannotSuspend: {}
  /** A move key from the spectator, whose view does not scroll. */
  SpectatorWatches: {}
  /** A keystroke that is no single key (a function key, an Alt combination). */
  UnknownKey: {}
  /** Q went out; the server's QUIT has not come yet. */
  Leaving: {}
}>

export type Note = ReaderNote | ClientNote
export const Note = Data.taggedEnum<Note>()

/** The notes shown until the server is heard again: what the network did. */
export type Alert = Extract<Note, { readonly _tag: "NotAnswering" | "PortClosed" | "AddressChanged" }>

const unknownKey = ["unknown keystroke", "unknown key"] as const

/**
 * A note in words, the longest form first, then fewer words for a narrow window. Words
 * from the server (a refusal's reason) have no shorter form: the screen cuts those at a word.
 */
export const noteForms: (note: Note) => ReadonlyArray<string> = Note.$match({
  GoldReceived: ({ n }) => [`GOLD received: ${n}`, `+${n} nuggets`, `+${n}`],
  YouTook: ({ from, n }) => [`you took ${nuggetCount(n)} from ${from.join(", ")}`, `took ${n} from ${from.join(", ")}`, `+${n}`],
  TakenFromYou: ({ n }) => [`${nuggetCount(n)} taken from you`, `lost ${n}`, `-${n}`],
  TookFromYou: ({ by, n }) => [`${by} took ${nuggetCount(n)} from you`, `${by} took ${n}`, `-${n}`],
  NothingToTake: ({ other }) => [`${other} had no nuggets to take`],
  BadMessage: ({ kind, reason }) => [`${kind} message from server: ${reason}`],
  BadDisplay: ({ reason }) => [reason],
  GridChanged: ({ cols, firstCols, firstRows, rows }) => [`GRID ${rows}x${cols} differs from the first (${firstRows}x${firstCols})`],
  // Our own server's words for an unknown key are the client's own: they shorten alike.
  ServerSaid: ({ refusal, text }) => text === unknownKey[0] ? unknownKey : [text || refusal.toUpperCase()],
  NotAnswering: () => ["the server is not answering; Q leaves at once", "server not answering; Q leaves", "no answer"],
  PortClosed: () => ["the server is gone (port unreachable); Q leaves", "server gone; Q leaves", "gone"],
  AddressChanged: () => [
    "your network address changed; the server no longer knows you. Enter: join again as a new player; Q: leave",
    "address changed: Enter joins again, Q leaves",
    "Enter: join again"
  ],
  QuitAsksAgain: () => ["friends are playing: Q again to end the game for everyone", "Q again ends it for all", "Q again"],
  NoSuspendWithFriends: () => ["friends are playing: Ctrl-Z would freeze the game for them", "friends playing: no Ctrl-Z"],
  CannotSuspend: () => ["Ctrl-Z: cannot suspend, no shell with job control", "Ctrl-Z: no job control"],
  SpectatorWatches: () => ["the spectator watches: the whole map is in view (Q quits)", "the whole map is in view", "only watching"],
  UnknownKey: () => unknownKey,
  Leaving: () => ["leaving..."]
})

/** A note in its own words: its longest form. */
export const noteText = (note: Note): string => noteForms(note)[0]!

/** The spec's status line. */
export const statusLine = (report: GameReport): string => {
  const { letter, purse, remaining = "?", role } = report
  return role === "spectator"
    ? `Spectator: ${remaining} nuggets unclaimed.`
    : `Player ${letter ?? "?"} has ${purse} nuggets (${remaining} nuggets unclaimed).`
}

/** The status line in fewer words, longest first, for windows too narrow for the spec's own. */
export const shorterStatus = (report: GameReport): ReadonlyArray<string> => {
  const { letter = "?", purse, remaining = "?", role } = report
  return role === "spectator"
    ? [statusLine(report), `Spectator: ${remaining} unclaimed.`, `${remaining} left`]
    : [statusLine(report), `Player ${letter}: ${purse} nuggets, ${remaining} unclaimed.`, `${letter}: ${purse}, ${remaining} left`, `${letter} ${purse}/${remaining}`]
}
