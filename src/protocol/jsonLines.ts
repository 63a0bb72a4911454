import { Either } from "effect"

/** A file of newline-delimited JSON as recordings and transcripts are kept: a header line, then an entry a line. */
export interface JsonLines<H, E> {
  readonly header: H
  readonly entries: ReadonlyArray<E>
}

/** The first line that is no entry, by its number (1 is the header's), and why. */
export interface BadLine {
  readonly line: number
  readonly reason: string
}

/** What of a file reads up to its first bad line (see `readJsonLinesUpTo`), and that line, if there is one. */
export interface JsonLinesUpTo<H, E> extends JsonLines<H, E> {
  readonly badLine: BadLine | undefined
}

/** How the caller reads a file's lines, in its own words (see `readJsonLines`). */
export interface LineReader<H, E> {
  readonly empty: string
  readonly header: (line: string) => Either.Either<H, string>
  readonly entry: (line: string) => Either.Either<E, string | undefined>
  readonly notEntry: string
}

/**
 * Reads `text` line by line, in the caller's words, and stops at the first line that is no
 * entry, which it gives with its number: `empty` for a file with no line at all, `header`
 * reads the first line, `entry` each other one. A last line cut short (its writer was
 * stopped mid-line) is dropped, and is no bad line: what came before it reads. A line that
 * is no entry (`entry` gives `Left(undefined)`) is bad as `notEntry`, and one that `entry`
 * refuses with a reason, as that. Only a file whose header cannot be read is refused.
 */
export const readJsonLinesUpTo = <H, E>(text: string, read: LineReader<H, E>): Either.Either<JsonLinesUpTo<H, E>, string> => {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  if (lines.length === 0) return Either.left(read.empty)
  const header = read.header(lines[0]!)
  if (Either.isLeft(header)) return Either.left(header.left)
  const entries: Array<E> = []
  for (let i = 1; i < lines.length; i++) {
    const entry = read.entry(lines[i]!)
    if (Either.isRight(entry)) {
      entries.push(entry.right)
      continue
    }
    const torn = i === lines.length - 1 && !text.endsWith("\n")
    if (entry.left === undefined && torn) break
    return Either.right({ header: header.right, entries, badLine: { line: i + 1, reason: entry.left ?? read.notEntry } })
  }
  return Either.right({ header: header.right, entries, badLine: undefined })
}

/** Reads `text` as `readJsonLinesUpTo` does, but refuses a file with a bad line, naming it (`line 7: ...`). */
export const readJsonLines = <H, E>(text: string, read: LineReader<H, E>): Either.Either<JsonLines<H, E>, string> =>
  Either.flatMap(readJsonLinesUpTo(text, read), ({ badLine, entries, header }) =>
    badLine === undefined ? Either.right({ header, entries }) : Either.left(`line ${badLine.line}: ${badLine.reason}`))
