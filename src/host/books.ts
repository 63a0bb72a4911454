import { Either } from "effect"
import type { PortRange } from "./ports.js"

/**
 * The host's books: which games it runs and which are starting, their ports, the pace of
 * new games, the map whose turn is next, and how many games it has archived. Plain data,
 * changed only by the functions here, each a new value: the host keeps the books in one
 * place and asks these what to do, so every rule of it can be tested without a socket.
 */
export interface Books {
  /** Games started and not yet gone (being played, lingering after their end, or closing). */
  readonly games: ReadonlyMap<string, BookedGame>
  /** Games being started: counted against the most games, and as open. */
  readonly starting: number
  readonly stopping: boolean
  /** When the host began to stop (ms). */
  readonly stoppedAt: number | undefined
  /** The map whose turn is next, for a game that does not name one. */
  readonly turn: number
  /** Games ended and indexed since the host started: the archive changed when this grows. */
  readonly archived: number
  /** Ports taken by games, and the next to try: a port just given back is the last to be taken again. */
  readonly ports: { readonly taken: ReadonlySet<number>; readonly next: number }
  /** New games each client's requests may start now (a token bucket each, by address); the oldest forgotten past a few thousand. */
  readonly paces: ReadonlyMap<string, Bucket>
  /** New games all requests together may start now: the pace of `everyone`. */
  readonly pace: Bucket
}

/** A token bucket: tokens as of `at` (ms). */
export interface Bucket {
  readonly tokens: number
  readonly at: number
}

/** A bucket's tokens at `now`, saved at `rate` up to its burst. */
const filled = (bucket: Bucket | undefined, rate: Rate, now: number): number =>
  bucket === undefined ? rate.burst : Math.min(rate.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate.perSecond)

/** Clients whose pace is kept at most: one at rest is no different from a new one. */
const pacedClients = 4096

export interface BookedGame {
  readonly port: number
  /** Not over, and a letter left for a newcomer. */
  readonly freePlace: boolean
  /** It took a message: a game no one ever came to leaves nothing behind. */
  readonly visited: boolean
  /** Its scope is closing, on its way to the archive: no longer offered. */
  readonly closing: boolean
}

/** The host's limits, as the command line set them. */
export interface Limits {
  readonly maxGames: number
  /** Games with free places kept open. */
  readonly open: number
  readonly ports: PortRange | undefined
  /** New games a second that each client's requests may start, and how many at once. */
  readonly startRate: Rate
  /** The same, for all clients together: many clients cannot start more than this between them. */
  readonly everyone: Rate
}

export interface Rate {
  readonly perSecond: number
  readonly burst: number
}

/** Why the books refuse a new game, in the words a request is answered with. */
export interface Refusal {
  readonly reason: "Full" | "TooFast" | "Stopping"
  readonly message: string
}

export const openBooks = (limits: Limits, now: number): Books => ({
  games: new Map(),
  starting: 0,
  stopping: false,
  stoppedAt: undefined,
  turn: 0,
  archived: 0,
  ports: { taken: new Set(), next: limits.ports?.first ?? 0 },
  paces: new Map(),
  pace: { tokens: limits.everyone.burst, at: now }
})

const stoppingRefusal: Refusal = { reason: "Stopping", message: "the host is stopping" }

/** The index of the map whose turn it is, of `count`, and the books with the turn moved on. */
export const nextTurn = (books: Books, count: number): [number, Books] => [books.turn % count, { ...books, turn: books.turn + 1 }]

/**
 * A request for a new game from `client` (an address): refused while the host stops, when
 * it runs its most games (counting those starting), or when that client's requests, or
 * everyone's, come faster than their pace; else one more is starting (see `started`,
 * `gaveUp`). One client's flood uses up its own pace, not the others'.
 */
export const admit = (books: Books, limits: Limits, now: number, client: string): Either.Either<Books, Refusal> => {
  if (books.stopping) return Either.left(stoppingRefusal)
  if (books.games.size + books.starting >= limits.maxGames) {
    return Either.left({
      reason: "Full",
      message: `the host runs its most games at once (${limits.maxGames}): join one, or try again when one ends`
    })
  }
  const mine = filled(books.paces.get(client), limits.startRate, now)
  const all = filled(books.pace, limits.everyone, now)
  if (mine < 1 || all < 1) {
    return Either.left({ reason: "TooFast", message: "too many new games at once: try again in a second" })
  }
  const paces = new Map(books.paces)
  paces.delete(client)
  if (paces.size >= pacedClients) paces.delete(paces.keys().next().value!)
  paces.set(client, { tokens: mine - 1, at: now })
  return Either.right({ ...books, paces, pace: { tokens: all - 1, at: now }, starting: books.starting + 1 })
}

/** Games with a free place, counting those starting (each will have one). */
export const openCount = (books: Books): number => {
  let open = books.starting
  for (const game of books.games.values()) if (game.freePlace && !game.closing) open++
  return open
}

/** `--open N`: how many games to open now so that N have free places, within the most games. */
export const missingOpen = (books: Books, limits: Limits): number =>
  books.stopping ? 0 : Math.max(0, Math.min(limits.open - openCount(books), limits.maxGames - books.games.size - books.starting))

/** `count` games the host opens by itself start. */
export const opening = (books: Books, count: number): Books => ({ ...books, starting: books.starting + count })

/** A game that was starting could not. */
export const gaveUp = (books: Books): Books => ({ ...books, starting: books.starting - 1 })

/** The ports to try for a new game, in order, none taken by a game of ours: 0 (the system's choice) without a range. */
export const portCandidates = (books: Books, limits: Limits): ReadonlyArray<number> => {
  const range = limits.ports
  if (range === undefined) return [0]
  const size = range.last - range.first + 1
  const order: Array<number> = []
  for (let i = 0; i < size; i++) {
    const port = range.first + ((books.ports.next - range.first + i) % size)
    if (!books.ports.taken.has(port)) order.push(port)
  }
  return order
}

/** A game that was starting has started, on `port`. */
export const started = (books: Books, limits: Limits, id: string, port: number, freePlace: boolean): Books => {
  const games = new Map(books.games)
  games.set(id, { port, freePlace, visited: false, closing: false })
  const range = limits.ports
  const ports = range === undefined
    ? books.ports
    : { taken: new Set(books.ports.taken).add(port), next: port === range.last ? range.first : port + 1 }
  return { ...books, games, ports, starting: books.starting - 1 }
}

/** What the game said of itself: whether a newcomer still has a place, and that someone came. */
export const played = (books: Books, id: string, freePlace: boolean): Books => {
  const game = books.games.get(id)
  if (game === undefined || (game.visited && game.freePlace === freePlace)) return books
  const games = new Map(books.games)
  games.set(id, { ...game, freePlace, visited: true })
  return { ...books, games }
}

/**
 * A game no one has been in for the idle timeout is ended, unless it is one of the `--open`
 * games kept for newcomers: a flood of requests cannot keep the host full of empty games.
 */
export const endsDeserted = (books: Books, limits: Limits, id: string): boolean => {
  const game = books.games.get(id)
  if (game === undefined || game.closing) return false
  return !game.freePlace || openCount(books) > limits.open
}

/** A game's scope is closing: it is no longer offered. */
export const closing = (books: Books, id: string): Books => {
  const game = books.games.get(id)
  if (game === undefined) return books
  const games = new Map(books.games)
  games.set(id, { ...game, closing: true })
  return { ...books, games }
}

/** A game has gone (closed, and archived if `archived`): its port comes back. */
export const gone = (books: Books, id: string, archived: boolean): Books => {
  const game = books.games.get(id)
  if (game === undefined) return books
  const games = new Map(books.games)
  games.delete(id)
  const taken = new Set(books.ports.taken)
  taken.delete(game.port)
  return { ...books, games, ports: { ...books.ports, taken }, archived: books.archived + (archived ? 1 : 0) }
}

/** A game that went unindexed (a full disk) is in the archive now. */
export const indexedLate = (books: Books): Books => ({ ...books, archived: books.archived + 1 })

export const stop = (books: Books, now: number): Books => ({ ...books, stopping: true, stoppedAt: now })

/** Whether `id` is offered: started, and not closing. */
export const offered = (books: Books, id: string): boolean => {
  const game = books.games.get(id)
  return game !== undefined && !game.closing
}
