import { citation } from "../conformance/requirements.js"
import { type Conversation, heard, lintClientMessage, lintServerMessage, newConversation } from "../conformance/lint.js"
import type { RelayEvent } from "./relay-events.js"

/**
 * The proxy's timeline: one line per datagram, with the time, who sent it to whom, what
 * became of it (lost, duplicated, delayed, reordered) and the message decoded; each message
 * that breaks the spec is followed by a line saying how.
 */

const paint = {
  fault: "\x1b[33m",
  copy: "\x1b[36m",
  late: "\x1b[35m",
  flag: "\x1b[1;31m",
  dim: "\x1b[2m",
  off: "\x1b[0m"
}

export interface TimelineCounts {
  datagrams: number
  lost: number
  duplicated: number
  delayed: number
  reordered: number
  /** Messages that a side sent again on its own: the same text as its previous one. */
  again: number
  flagged: number
}

export interface Timeline {
  /** Takes one event of the relay and writes its lines. */
  readonly onEvent: (event: RelayEvent) => void
  readonly counts: TimelineCounts
  /** One line: how many datagrams, and what became of them. */
  readonly summary: () => string
}

const fateOf = (event: RelayEvent): { readonly text: string; readonly colour: string } => {
  switch (event.kind) {
    case "drop":
      return { text: "LOST", colour: paint.fault }
    case "duplicate":
      return { text: `DUP x${(event.copies ?? 1) + 1}`, colour: paint.copy }
    case "delay":
      return { text: `+${event.ms}ms`, colour: paint.late }
    case "reorder":
      return { text: "HELD", colour: paint.late }
    case "hold":
      return { text: "HELD", colour: paint.late }
    case "release":
      return { text: "late", colour: paint.late }
    case "rewrite":
      return { text: "EDITED", colour: paint.fault }
    case "forward":
      return { text: "", colour: "" }
  }
}

export const makeTimeline = (write: (line: string) => void, options: { readonly colour: boolean }): Timeline => {
  const conversations = new Map<number, Conversation>()
  const previous = new Map<string, string>()
  const counts: TimelineCounts = { datagrams: 0, lost: 0, duplicated: 0, delayed: 0, reordered: 0, again: 0, flagged: 0 }
  const colour = (code: string, text: string) => (options.colour && code && text ? `${code}${text}${paint.off}` : text)
  const seen = new Set<number>()

  const onEvent = (event: RelayEvent) => {
    const who = `#${event.clientNumber}`
    const route = event.dir === "up" ? `${who} -> server` : `server -> ${who}`
    const time = (event.at / 1000).toFixed(3).padStart(9)
    const fate = fateOf(event)
    if (event.dir === "up" && !seen.has(event.clientNumber)) {
      seen.add(event.clientNumber)
      write(colour(paint.dim, `${time}  ${who} is ${event.client}`))
    }
    const delivered = event.kind === "forward" || event.kind === "duplicate" || event.kind === "release"
    if (event.dir === "down" && delivered) {
      conversations.set(event.clientNumber, heard(conversations.get(event.clientNumber) ?? newConversation, event.bytes, event.at))
    }
    if (event.kind === "release") {
      write(`${time}  ${route.padEnd(16)} ${colour(fate.colour, fate.text.padEnd(7))} ${colour(paint.dim, "(sent now)")}`)
      return
    }
    counts.datagrams++
    if (event.kind === "drop") counts.lost++
    if (event.kind === "duplicate") counts.duplicated++
    if (event.kind === "delay") counts.delayed++
    if (event.kind === "reorder" || event.kind === "hold") counts.reordered++
    const conversation = conversations.get(event.clientNumber) ?? newConversation
    const linted = event.dir === "up"
      ? lintClientMessage(conversation, event.bytes, event.at)
      : lintServerMessage(conversation, event.bytes)
    conversations.set(event.clientNumber, linted.conversation)
    // A side's own repeat (a PLAY sent again, a GAMEOVER repeated, Ctrl-L asking for the view
    // again); keys, views and purses repeat by nature.
    const key = `${event.dir} ${event.clientNumber}`
    const again = (previous.get(key) === event.text && !/^(KEY|DISPLAY|GOLD)\b/.test(event.text)) || event.text === "KEY \f"
    previous.set(key, event.text)
    if (again) counts.again++
    const mark = linted.flags.length > 0 ? colour(paint.flag, "!!") : "  "
    write(
      `${time}  ${route.padEnd(16)} ${colour(fate.colour, fate.text.padEnd(7))} ${mark} ${linted.summary}` +
        (again ? colour(paint.dim, "  (again)") : "")
    )
    for (const each of linted.flags) {
      counts.flagged++
      write(colour(paint.flag, `${" ".repeat(38)}!! ${each.reason} (${citation(each.spec)})`))
    }
  }

  return {
    onEvent,
    counts,
    summary: () =>
      `${counts.datagrams} datagrams: ${counts.lost} lost, ${counts.duplicated} duplicated, ${counts.delayed} delayed, ` +
      `${counts.reordered} reordered; ${counts.again} sent again by their sender; ${counts.flagged} flagged`
  }
}
