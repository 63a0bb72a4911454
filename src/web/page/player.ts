import { joinMessage } from "../../client/state.js"
import { endOf, endTitle, nuggetsLeftAt } from "../../protocol/endings.js"
import { encodeClientMessage } from "../../protocol/messages.js"
import { type GameReport, newReport, readDatagram, type SessionEnd } from "../../protocol/reader.js"

/**
 * The page's player: a WebSocket to `play` beside the page carrying the protocol's own messages (PLAY,
 * KEY out; OK, GRID, GOLD, DISPLAY, QUIT, GAMEOVER, NO in), read by the same reader as the
 * terminal client and the bots, and sent as the terminal client sends them (the name cut
 * as the spec asks).
 */

export interface PlayerEvents {
  /** The server let the player in (its first answer that is not a refusal). */
  readonly joined: () => void
  /** Something new to show. */
  readonly changed: (report: GameReport) => void
  /** The session is over: the words to show, and whether it was the game's end. */
  readonly ended: (message: string, gameOver: boolean) => void
}

const farewell = (ending: SessionEnd, report: GameReport): string => {
  switch (ending._tag) {
    case "GameOver":
      return `${endTitle(endOf(nuggetsLeftAt(ending.summary, report.remaining) ?? 0))}.`
    case "Quit":
      return ending.reason || "The server ended the game for you."
    case "Refused":
      return ending.reason || "The game refused you."
    case "BadGrid":
      return `The game's map cannot be shown: ${ending.reason}`
  }
}

export class PlayerSession {
  report: GameReport = newReport("player")
  private readonly socket: WebSocket
  private over = false

  constructor(name: string, private readonly events: PlayerEvents) {
    const url = new URL("play", location.href)
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:"
    const socket = new WebSocket(url.href)
    socket.binaryType = "arraybuffer"
    socket.onopen = () => socket.send(encodeClientMessage(joinMessage({ _tag: "Player", name })))
    socket.onmessage = (event: MessageEvent<string | ArrayBuffer>) =>
      this.hear(typeof event.data === "string" ? event.data : new Uint8Array(event.data))
    socket.onclose = () => this.end(this.report.joined ? "The connection to the game was lost." : "Could not reach the game.", false)
    this.socket = socket
  }

  /** Sends one keystroke, if the socket is open. */
  key(key: string): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(encodeClientMessage({ _tag: "Key", key }))
  }

  private hear(data: Uint8Array | string): void {
    if (this.over) return
    const wasJoined = this.report.joined
    this.report = readDatagram(this.report, data)
    if (!wasJoined && this.report.joined) this.events.joined()
    const ending = this.report.ending
    if (ending) return this.end(farewell(ending, this.report), ending._tag === "GameOver")
    this.events.changed(this.report)
  }

  private end(message: string, gameOver: boolean): void {
    if (this.over) return
    this.over = true
    if (this.socket.readyState <= WebSocket.OPEN) this.socket.close(1000)
    this.events.ended(message, gameOver)
  }
}
