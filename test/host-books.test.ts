import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import {
  admit,
  type Books,
  closing,
  endsDeserted,
  gaveUp,
  gone,
  type Limits,
  missingOpen,
  nextTurn,
  offered,
  openBooks,
  opening,
  played,
  portCandidates,
  started,
  stop
} from "../src/host/books.js"

/** The host's books alone: every rule of what may start, with no socket and no clock but the numbers given. */

const limits: Limits = {
  maxGames: 3,
  open: 1,
  ports: { first: 4000, last: 4003 },
  startRate: { perSecond: 1, burst: 10 },
  everyone: { perSecond: 10, burst: 100 }
}

/** A request admitted and started on `port`, at `now`. */
const request = (books: Books, id: string, port: number, now = 0): Books => {
  const admitted = admit(books, limits, now, "alice")
  if (Either.isLeft(admitted)) throw new Error(admitted.left.message)
  return started(admitted.right, limits, id, port, true)
}

describe("the host's books", () => {
  it("count games being started against the most games at once, and refuse past it with the reason the request is told", () => {
    let books = openBooks(limits, 0)
    for (const id of ["a", "b"]) books = request(books, id, 0)
    const third = admit(books, limits, 0, "alice")
    expect(Either.isRight(third)).toBe(true)
    // The third is starting: counted, so a fourth is refused before the third has started.
    const fourth = admit(Either.getOrThrow(third), limits, 0, "alice")
    expect(Either.getLeft(fourth).pipe((left) => left._tag === "Some" && left.value)).toMatchObject({
      reason: "Full",
      message: "the host runs its most games at once (3): join one, or try again when one ends"
    })
    // A start that failed gives its place back.
    expect(Either.isRight(admit(gaveUp(Either.getOrThrow(third)), limits, 0, "alice"))).toBe(true)
  })

  it("refuse every new game once the host stops", () => {
    const books = stop(openBooks(limits, 0), 10)
    expect(Either.getLeft(admit(books, limits, 10, "alice")).pipe((left) => left._tag === "Some" && left.value.reason)).toBe("Stopping")
    expect(missingOpen(books, limits)).toBe(0)
  })

  it("open games until --open have a free place, counting those starting, within the most games", () => {
    let books = openBooks(limits, 0)
    expect(missingOpen(books, limits)).toBe(1)
    books = opening(books, 1)
    expect(missingOpen(books, limits)).toBe(0)
    books = started(books, limits, "a", 4000, true)
    expect(missingOpen(books, limits)).toBe(0)
    // It filled up: another is wanted.
    books = played(books, "a", false)
    expect(missingOpen(books, limits)).toBe(1)
    // At the most games, none.
    books = request(request(books, "b", 4001), "c", 4002)
    expect(missingOpen(played(played(books, "b", false), "c", false), limits)).toBe(0)
  })

  it("hand out the ports of the range in turn, never one a game holds, and take each back when its game goes", () => {
    let books = openBooks(limits, 0)
    expect(portCandidates(books, limits)).toEqual([4000, 4001, 4002, 4003])
    books = request(books, "a", 4000)
    books = request(books, "b", 4001)
    // The next game tries the port after the last taken.
    expect(portCandidates(books, limits)).toEqual([4002, 4003])
    books = gone(books, "a", true)
    // A port given back is the last to be taken again.
    expect(portCandidates(books, limits)).toEqual([4002, 4003, 4000])
    expect(books.archived).toBe(1)
    expect(portCandidates(openBooks({ ...limits, ports: undefined }, 0), { ...limits, ports: undefined })).toEqual([0])
  })

  it("end a deserted game unless it is one kept open for newcomers; a full one always", () => {
    let books = request(request(openBooks(limits, 0), "a", 4000), "b", 4001)
    // Two open games and --open 1: either may go, not both.
    expect(endsDeserted(books, limits, "a")).toBe(true)
    books = closing(books, "a")
    expect(endsDeserted(books, limits, "b")).toBe(false)
    expect(endsDeserted(books, limits, "a")).toBe(false)
    // A game no one can join is not one kept open.
    expect(endsDeserted(played(books, "b", false), limits, "b")).toBe(true)
  })

  it("offer a game from its start until its scope begins to close, and know whether anyone came", () => {
    let books = request(openBooks(limits, 0), "a", 4000)
    expect(offered(books, "a")).toBe(true)
    expect(books.games.get("a")?.visited).toBe(false)
    books = played(books, "a", true)
    expect(books.games.get("a")?.visited).toBe(true)
    books = closing(books, "a")
    expect(offered(books, "a")).toBe(false)
    expect(offered(gone(books, "a", false), "a")).toBe(false)
  })

  it("take maps in turn, and keep the pace: a burst, then so many a second", () => {
    let books = openBooks({ ...limits, maxGames: 100, startRate: { perSecond: 2, burst: 2 } }, 0)
    const turns: Array<number> = []
    for (let i = 0; i < 4; i++) {
      const [turn, next] = nextTurn(books, 3)
      turns.push(turn)
      books = next
    }
    expect(turns).toEqual([0, 1, 2, 0])
    const paced = { ...limits, maxGames: 100, startRate: { perSecond: 2, burst: 2 } }
    const take = (at: number) => {
      const admitted = admit(books, paced, at, "alice")
      if (Either.isRight(admitted)) books = admitted.right
      return Either.isRight(admitted)
    }
    expect([0, 0, 0].map(take)).toEqual([true, true, false])
    expect([499, 500].map(take)).toEqual([false, true])
  })

  it("keep a pace for each client: one's flood uses up its own, not another's; and everyone's together is capped", () => {
    const paced: Limits = { ...limits, maxGames: 100, startRate: { perSecond: 0.001, burst: 2 }, everyone: { perSecond: 0.001, burst: 3 } }
    let books = openBooks(paced, 0)
    const take = (client: string) => {
      const admitted = admit(books, paced, 0, client)
      if (Either.isRight(admitted)) books = admitted.right
      return Either.isRight(admitted)
    }
    expect(["flood", "flood", "flood", "flood"].map(take)).toEqual([true, true, false, false])
    expect(take("calm")).toBe(true)
    // Three at once for everyone: the next client, however calm, waits too.
    expect(take("late")).toBe(false)
  })
})
