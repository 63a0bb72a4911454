import { Effect } from "effect"

/** Messages waiting, while the page takes nothing, beyond which it is taken to be gone: it is cut off. */
const maxWaiting = 256

const isDisplay = (data: Uint8Array | string) => typeof data !== "string" && data[0] === 0x44 && data[1] === 0x49

/**
 * What waits to go to one page: the game's messages, in order, of which only the newest
 * DISPLAY is kept (each is the whole view, so an older one is never worth sending). The
 * game puts messages in from its own synchronous code; the page's sender takes them all.
 */
export class Outbox {
  private messages: Array<Uint8Array | string> = []
  private readonly ready = Effect.unsafeMakeLatch(false)

  /** Succeeds once something waits. */
  readonly waiting: Effect.Effect<void> = this.ready.await

  /** Whether more waits than any page that reads could leave behind. */
  get overflowing(): boolean {
    return this.messages.length > maxWaiting
  }

  readonly push = (data: Uint8Array | string): void => {
    if (isDisplay(data)) this.messages = this.messages.filter((waiting) => !isDisplay(waiting))
    this.messages.push(data)
    this.ready.unsafeOpen()
  }

  takeAll(): ReadonlyArray<Uint8Array | string> {
    const taken = this.messages
    this.messages = []
    this.ready.unsafeClose()
    return taken
  }
}
