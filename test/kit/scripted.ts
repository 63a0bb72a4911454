import { Effect } from "effect"
import * as dgram from "node:dgram"

/**
 * A server played by a script on a real loopback socket: each datagram is handed to the
 * script with a way to answer its sender. Deliberately broken servers for the kit's tests
 * are a few lines each.
 */
export interface Sender {
  readonly address: string
  readonly port: number
}

export type Script = (text: string, reply: (...texts: ReadonlyArray<string | Uint8Array>) => void, from: Sender) => void

export const scriptedServer = (script: Script) =>
  Effect.acquireRelease(
    Effect.async<{ readonly port: number; readonly socket: dgram.Socket; readonly received: Array<string> }>((resume) => {
      const socket = dgram.createSocket("udp4")
      const received: Array<string> = []
      socket.on("message", (bytes, from) => {
        const text = bytes.toString("latin1")
        received.push(text)
        script(text, (...texts) => {
          for (const each of texts) socket.send(each, from.port, from.address)
        }, { address: from.address, port: from.port })
      })
      socket.bind(0, "127.0.0.1", () => {
        resume(Effect.succeed({ port: socket.address().port, socket, received }))
      })
    }),
    ({ socket }) =>
      Effect.async<void>((resume) => {
        socket.close(() => resume(Effect.void))
      })
  )

/** A DISPLAY of `rows` lines of `cols` characters each, `@` at row 0, column 0 unless told. */
export const displayOf = (rows: number, cols: number, fill = ".") =>
  "DISPLAY\n" + Array.from({ length: rows }, () => fill.repeat(cols) + "\n").join("")
