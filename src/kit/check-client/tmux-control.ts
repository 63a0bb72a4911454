import { Clock, Data, Deferred, Effect, Option, Queue, type Scope } from "effect"
import { execFile, spawn } from "node:child_process"

/**
 * tmux, driven the way it offers to programs: control mode (`tmux -C`). One client process
 * stays attached to a session for as long as a scope lasts; a command is a line written to
 * its stdin, answered in order between `%begin` and `%end` (or `%error`), and every write to
 * a pane comes as `%output` news. So reading the screen or typing a key starts no process
 * (a fork of a large program costs more than the command), and a wait can wake at each write
 * instead of polling.
 */

export class TtyError extends Data.TaggedError("TtyError")<{ readonly message: string }> {}

/** tmux run once, for what comes before a session exists (new-session, -V) and after (kill-server). */
export const runTmux = (args: ReadonlyArray<string>) =>
  Effect.async<string, TtyError>((resume) => {
    execFile("tmux", [...args], { timeout: 5000 }, (error, stdout, stderr) => {
      if (error) {
        const missing = (error as NodeJS.ErrnoException).code === "ENOENT"
        resume(Effect.fail(new TtyError({ message: missing ? "check client needs tmux: apt-get install tmux" : `tmux: ${stderr.trim() || error.message}` })))
      } else {
        resume(Effect.succeed(stdout))
      }
    })
  })

export interface TmuxControl {
  /** A tmux command (its words, quoted here), and what it printed. */
  readonly command: (...words: ReadonlyArray<string>) => Effect.Effect<string, TtyError>
  /** Offered to at each write to a pane (wakes in a row are one); others may offer to it too. */
  readonly writes: Queue.Queue<void>
  /**
   * `look` again at each write, until `done` holds of what it gives and the pane has then been
   * quiet a moment (a frame may reach tmux in pieces: no one is told of half a frame), or `ms`
   * have passed. What it last saw, and whether `done` held.
   */
  readonly lookUntil: <A>(look: Effect.Effect<A>, done: (seen: A) => boolean, ms: number) => Effect.Effect<{ readonly seen: A; readonly held: boolean }>
}

/** How long a pane must stay quiet after a look that `done` holds of, for it to count. */
const settleMs = 30

/** A word as tmux's command parser reads it back unchanged: single quotes, with `'` written `'\''`. */
const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`

/** Marks the answer to the first command, so that any block tmux sends on attaching is told apart. */
const readyMark = "nuggets-control-ready"

/** A control-mode client attached to `session` of the tmux server that `serverArgs` name (`-S socket`, `-f config`). */
export const openTmuxControl = (serverArgs: ReadonlyArray<string>, session: string): Effect.Effect<TmuxControl, TtyError, Scope.Scope> =>
  Effect.gen(function*() {
    const writes = yield* Queue.sliding<void>(1)
    const pending: Array<Deferred.Deferred<string, TtyError>> = []
    const ready = yield* Deferred.make<string, TtyError>()
    pending.push(ready)
    let block: { readonly number: string; readonly lines: Array<string> } | undefined
    let partial = ""
    const failAll = (message: string) => {
      for (const each of pending.splice(0)) Deferred.unsafeDone(each, Effect.fail(new TtyError({ message })))
    }
    const line = (text: string) => {
      if (block !== undefined) {
        const end = /^%(end|error) \d+ (\d+) \d+$/.exec(text)
        if (end === null || end[2] !== block.number) return void block.lines.push(text)
        const output = block.lines.join("\n")
        block = undefined
        // A block before the ready mark's answers no command of ours (tmux's own, on attaching).
        if (pending[0] === ready && output !== readyMark) return
        const answered = pending.shift()
        if (answered !== undefined) Deferred.unsafeDone(answered, end[1] === "end" ? Effect.succeed(output) : Effect.fail(new TtyError({ message: `tmux: ${output}` })))
        return
      }
      const begin = /^%begin \d+ (\d+) \d+$/.exec(text)
      if (begin !== null) block = { number: begin[1]!, lines: [] }
      else if (text.startsWith("%output ")) Queue.unsafeOffer(writes, undefined)
      else if (text.startsWith("%exit")) failAll("tmux: the session ended")
    }
    const client = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const started = spawn("tmux", [...serverArgs, "-C", "attach-session", "-t", session], { stdio: ["pipe", "pipe", "ignore"] })
        started.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          const lines = (partial + chunk).split("\n")
          partial = lines.pop()!
          for (const each of lines) line(each)
        })
        started.on("exit", () => failAll("tmux: the control client ended"))
        started.on("error", (error) => failAll(`tmux: ${error.message}`))
        // Its stdin is held open, or it would leave.
        started.stdin.on("error", () => undefined)
        return started
      }),
      (started) => Effect.sync(() => void started.kill())
    )
    const send = (words: ReadonlyArray<string>, answer: Deferred.Deferred<string, TtyError>) =>
      Effect.sync(() => {
        if (client.exitCode !== null || client.signalCode !== null) return failAll("tmux: the control client ended")
        if (answer !== ready) pending.push(answer)
        client.stdin.write(words.map(quoted).join(" ") + "\n")
      })
    yield* send(["display-message", "-p", readyMark], ready)
    yield* Deferred.await(ready)
    const lookUntil: TmuxControl["lookUntil"] = (look, done, ms) =>
      Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + ms
        for (;;) {
          // What was written before this look is in what it sees.
          yield* Queue.takeAll(writes)
          const seen = yield* look
          const held = done(seen)
          // Interruptible, so that the deadline holds in a finalizer too.
          const wrote = (wait: number) => Queue.take(writes).pipe(Effect.interruptible, Effect.timeoutOption(wait), Effect.map(Option.isSome))
          if (held && !(yield* wrote(settleMs))) return { seen, held }
          const left = deadline - (yield* Clock.currentTimeMillis)
          if (left <= 0) return { seen, held }
          // Unless the pane wrote while it settled, wait for it to write.
          if (!held) yield* wrote(left)
        }
      })
    return {
      writes,
      lookUntil,
      command: (...words) =>
        Effect.gen(function*() {
          const answer = yield* Deferred.make<string, TtyError>()
          yield* send(words, answer)
          return yield* Deferred.await(answer)
        })
    }
  })
