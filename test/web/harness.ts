import * as Socket from "@effect/platform/Socket"
import * as NodeSocket from "@effect/platform-node/NodeSocket"
import { Effect, Option } from "effect"
import type { WebOptions } from "../../src/web/gameWeb.js"
import { Inbox } from "../inbox.js"
import { startServer, type TestServerOptions } from "../server/harness.js"


/** A game server on loopback UDP with the web beside it, as `serve --web` runs them. */
export const startWebGame = async (options: Omit<TestServerOptions, "web"> & { readonly web?: Partial<WebOptions> }) => {
  const server = await startServer({ ...options, web: { host: "127.0.0.1", port: 0, ...options.web } })
  const web = Option.getOrThrow(server.web)
  return { ...server, web, url: web.url }
}

export interface SseEvent {
  readonly event: string
  readonly data: any
}

/** A watcher without a browser: `/watch` read with fetch, one parsed event at a time. */
export class Watcher {
  readonly events = new Inbox<SseEvent>("watcher")
  private constructor(private readonly abort: AbortController, readonly status: number) {}

  static async open(url: string): Promise<Watcher> {
    const abort = new AbortController()
    const response = await fetch(new URL("watch", url), { signal: abort.signal })
    const watcher = new Watcher(abort, response.status)
    if (response.ok) void watcher.read(response.body!)
    else abort.abort()
    return watcher
  }

  private async read(body: ReadableStream<Uint8Array>) {
    const decoder = new TextDecoder()
    let text = ""
    try {
      for await (const chunk of body) {
        text += decoder.decode(chunk, { stream: true })
        for (let end = text.indexOf("\n\n"); end !== -1; end = text.indexOf("\n\n")) {
          const lines = text.slice(0, end).split("\n")
          text = text.slice(end + 2)
          const field = (name: string) => lines.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2)
          this.events.push({ event: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") })
        }
      }
    } catch {
      // Aborted by close().
    }
  }

  /** The next snapshot that satisfies `wanted`. */
  snapshot(wanted: (snapshot: any) => boolean = () => true, timeoutMs = 3000): Promise<any> {
    return this.events.nextWhere((event) => event.event === "snapshot" && wanted(event.data), timeoutMs).then((event) => event.data)
  }

  close(): void {
    this.abort.abort()
  }
}

const webSocketConstructor = Effect.runSync(Effect.provide(Socket.WebSocketConstructor, NodeSocket.layerWebSocketConstructor))

/** A page's WebSocket without a browser: protocol text in, each server message out as text. */
export class PageSocket {
  readonly messages = new Inbox<string>("page socket")
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>

  private constructor(private readonly socket: WebSocket) {
    const decoder = new TextDecoder()
    socket.binaryType = "arraybuffer"
    socket.addEventListener("message", (event) => {
      this.messages.push(typeof event.data === "string" ? event.data : decoder.decode(event.data as ArrayBuffer))
    })
    this.closed = new Promise((resolve) => socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })))
  }

  static open(url: string): Promise<PageSocket> {
    const socket = webSocketConstructor(new URL("play", url).href.replace(/^http/, "ws"), undefined)
    const page = new PageSocket(socket)
    return new Promise((resolve, reject) => {
      socket.addEventListener("open", () => resolve(page))
      socket.addEventListener("error", () => reject(new Error("the WebSocket did not open")))
    })
  }

  send(data: string | Uint8Array): void {
    this.socket.send(data)
  }

  next(timeoutMs?: number): Promise<string> {
    return this.messages.next(timeoutMs)
  }

  nextStarting(prefix: string, timeoutMs?: number): Promise<string> {
    return this.messages.nextWhere((message) => message.startsWith(prefix), timeoutMs)
  }

  close(code = 1000): Promise<unknown> {
    this.socket.close(code)
    return this.closed
  }
}

