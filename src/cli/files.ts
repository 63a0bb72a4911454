import { Effect } from "effect"
import { accessSync, constants, type Stats, statSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { dirname, resolve } from "node:path"
import { errnoOf, errnoWords } from "../net/errno.js"
import { CliError } from "./error.js"

/**
 * A user's file is never lost: as asciinema's `rec` does, an output that exists is refused
 * unless `--overwrite` is given, and an output that is one of the command's inputs is
 * refused always. Checked before anything starts.
 */

/** A file the command reads, and what it is to the user. */
export interface Input {
  readonly path: string
  /** "the map", "the recording". */
  readonly what: string
}

/** A file the command writes, and the option that names it. */
export interface Output {
  readonly path: string
  /** `--record`, `--cast`, `--log`. */
  readonly flag: string
  /** Added to the end, as a log is: an existing file is no loss. */
  readonly append?: boolean
}

/** Standard output, where `--cast -` writes. */
export const stdoutPath = "-"

const statOf = (path: string): Stats | undefined => {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

/** The same file: the same path, or the same inode (a link, `./x` for `x`). */
const sameFile = (a: string, b: string): boolean => {
  if (resolve(a) === resolve(b)) return true
  const [first, second] = [statOf(a), statOf(b)]
  return first !== undefined && second !== undefined && first.dev === second.dev && first.ino === second.ino
}

const writable = (path: string): string | undefined => {
  try {
    accessSync(path, constants.W_OK)
    return undefined
  } catch (error) {
    return errnoWords(errnoOf(error))
  }
}

/** Why `output` cannot be written, or undefined when it can. */
const outputProblem = (output: Output, inputs: ReadonlyArray<Input>, overwrite: boolean): string | undefined => {
  const { path } = output
  const input = inputs.find((each) => sameFile(each.path, path))
  if (input !== undefined) return `it is ${input.what}: ${output.flag} must not write over it`
  const stats = statOf(path)
  if (stats?.isDirectory()) return `cannot write it: ${errnoWords("EISDIR")}`
  if (stats !== undefined) {
    if (!output.append && !overwrite) return `already exists: --overwrite lets ${output.flag} replace it`
    const why = writable(path)
    return why === undefined ? undefined : `cannot write it: ${why}`
  }
  const folder = statOf(dirname(resolve(path)))
  if (folder === undefined) return `cannot write it: ${errnoWords("ENOENT")}`
  if (!folder.isDirectory()) return `cannot write it: ${errnoWords("ENOTDIR")}`
  const why = writable(dirname(resolve(path)))
  return why === undefined ? undefined : `cannot write it: ${why}`
}

/** Refuses outputs that exist (without `overwrite`), are inputs, are each other, or cannot be written. */
export const checkOutputs = (
  outputs: ReadonlyArray<Output>,
  inputs: ReadonlyArray<Input>,
  overwrite: boolean
): Effect.Effect<void, CliError> =>
  Effect.suspend(() => {
    const files = outputs.filter((each) => each.path !== stdoutPath)
    for (const [index, output] of files.entries()) {
      const earlier = files.slice(0, index).find((each) => sameFile(each.path, output.path))
      if (earlier !== undefined) {
        return Effect.fail(new CliError({ message: `${output.path} — both ${earlier.flag} and ${output.flag} would write it` }))
      }
      const problem = outputProblem(output, inputs, overwrite)
      if (problem !== undefined) return Effect.fail(new CliError({ message: `${output.path} — ${problem}` }))
    }
    return Effect.void
  })

/** A file's text; the error names the file, what it was for, and what went wrong in words. */
export const readText = (path: string, what: string): Effect.Effect<string, CliError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => new CliError({ message: `${path} — cannot read ${what}: ${errnoWords(errnoOf(error), String(error))}` })
  })
