import { Either } from "effect"

/** A file of newline-delimited JSON as recordings and transcripts are kept: a header line, then an entry a line. */
export interface JsonLines<H, E> {
  readonly header: H
  readonly entries: ReadonlyArray<E>
}

/**
 * Reads `text` line by line, in the caller's words: `empty` for a file with no line at
 * all, `header` reads the first line, `entry` each other one. A last line cut short (its
 * writer was stopped mid-line) is dropped, so that what came before it still reads; any
 * other line that is no entry (`entry` gives `Left(undefined)`) is refused as `notEntry`,
 * and one that `entry` refuses with a reason, as that; both with the line's number.
 */
export const readJsonLines = <H, E>(
  text: string,
  read: {
    readonly empty: string
    readonly header: (line: string) => Either.Either<H, string>
    readonly entry: (line: string) => Either.Either<E, string | undefined>
    readonly notEntry: string
  }
): Either.Either<JsonLines<H, E>, string> => {
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
    return Either.left(`line ${i + 1}: ${entry.left ?? read.notEntry}`)
  }
  return Either.right({ header: header.right, entries })
}
