/** What a watcher's connection must offer: an HTTP response (or, in tests, any writable stream). */
export interface FrameSink {
  readonly writableNeedDrain: boolean
  readonly destroyed: boolean
  readonly writableEnded: boolean
  write(chunk: Uint8Array): boolean
  on(event: "drain" | "close", listener: () => void): unknown
  off(event: "drain" | "close", listener: () => void): unknown
}

/**
 * The watchers' connections and the latest frame. Each frame is written straight to every
 * connection, one write each: no fiber, queue or copy per watcher, which is what keeps
 * hundreds of watchers cheap. A connection still busy with earlier bytes skips frames and,
 * once drained, gets the newest: a slow watcher holds at most one frame beyond its
 * socket's buffer and costs the game nothing.
 */
export class Audience {
  private readonly members = new Map<FrameSink, { owes: boolean }>()
  private latest: Uint8Array | undefined

  get size(): number {
    return this.members.size
  }

  publish(frame: Uint8Array): void {
    this.latest = frame
    for (const [sink, member] of this.members) this.offer(sink, member)
  }

  /** Adds a connection, sending it `first` at once; it leaves by itself when it closes. */
  join(sink: FrameSink, first: Uint8Array): void {
    const member = { owes: false }
    const drained = () => {
      if (!member.owes) return
      member.owes = false
      this.offer(sink, member)
    }
    const leave = () => {
      sink.off("drain", drained)
      sink.off("close", leave)
      this.members.delete(sink)
    }
    sink.on("drain", drained)
    sink.on("close", leave)
    this.members.set(sink, member)
    sink.write(first)
  }

  private offer(sink: FrameSink, member: { owes: boolean }): void {
    if (sink.destroyed || sink.writableEnded || this.latest === undefined) return
    if (sink.writableNeedDrain) member.owes = true
    else sink.write(this.latest)
  }
}
