import { latin1 } from "../../protocol/transcript.js"
import { escaped } from "../conformance/escaping.js"

/**
 * Every datagram the checker sent, in order, with who sent it and during which step: the
 * record a dead server is held against. A server that dies is laid at the datagram sent
 * last before it died: before its process ended, when the checker started it; else before
 * the first datagram the system answered "port unreachable" for.
 */

export interface Sent {
  /** Its place among every datagram sent. */
  readonly seq: number
  /** When, in ms on the checker's clock. */
  readonly at: number
  /** The step it was sent in: `names`, `names, its preparation`. */
  readonly step: string
  /** The check that step belongs to. */
  readonly check: string
  /** Its socket: `player 3`. */
  readonly client: string
  /** Who sent it, as the server knew it then: `player C`, `the spectator`, `a client that never joined`. */
  readonly who: string
  readonly bytes: Uint8Array
  /** The server it went to: 1 for the first started, more after restarts. */
  readonly session: number
}

export class SendLog {
  private readonly sent: Array<Sent> = []
  /** The step under way, and its check: set by the run before each step. */
  step = ""
  check = ""
  session = 1

  record(at: number, client: string, who: string, bytes: Uint8Array): Sent {
    const entry = { seq: this.sent.length, at, step: this.step, check: this.check, client, who, bytes, session: this.session }
    this.sent.push(entry)
    return entry
  }

  /** The last datagram sent to this session's server at or before `at`. */
  lastBefore(at: number): Sent | undefined {
    for (let i = this.sent.length - 1; i >= 0; i--) {
      const each = this.sent[i]!
      if (each.session === this.session && each.at <= at) return each
    }
    return undefined
  }

  /** The datagram sent just before the one numbered `seq` (to the same server). */
  before(seq: number): Sent | undefined {
    for (let i = seq - 1; i >= 0; i--) if (this.sent[i]!.session === this.sent[seq]?.session) return this.sent[i]
    return undefined
  }

  /** What the same client sent, up to and including `last`: enough to do it again on a fresh server. */
  historyOf(last: Sent): ReadonlyArray<Sent> {
    return this.sent.filter((each) => each.session === last.session && each.client === last.client && each.seq <= last.seq)
  }
}

/** Bytes as a Python bytes literal in double quotes, with long runs written `b"h"*65503`. */
const pythonBytes = (bytes: Uint8Array): string => {
  if (bytes.length === 0) return `b""`
  const parts: Array<string> = []
  let plain = ""
  const flush = () => {
    if (plain !== "") parts.push(`b"${plain}"`)
    plain = ""
  }
  const one = (byte: number) =>
    byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x27 && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, "0")}`
  for (let i = 0; i < bytes.length;) {
    let run = 1
    while (i + run < bytes.length && bytes[i + run] === bytes[i]) run++
    if (run > 8) {
      flush()
      parts.push(`b"${one(bytes[i]!)}"*${run}`)
    } else {
      for (let k = 0; k < run; k++) plain += one(bytes[i]!)
    }
    i += run
  }
  flush()
  return parts.join("+")
}

/** A shell line that sends `datagrams` from one socket, 0.2 s apart, to `host` and `port` ("PORT" for a fresh server's). */
export const reproduction = (datagrams: ReadonlyArray<Uint8Array>, host: string, port: string): string =>
  `python3 -c 'import socket,time;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);` +
  `[(s.sendto(m,("${host}",${port})),time.sleep(0.2)) for m in [${datagrams.map(pythonBytes).join(",")}]]'`

/** A datagram as a report names it: `"KEY hh" from player C`. */
export const describeSent = (sent: Sent): string => `${escaped(latin1(sent.bytes), 100)} from ${sent.who}`
