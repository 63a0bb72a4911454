/**
 * What the system's error codes (errno) mean, in a few words: one table for sockets,
 * listeners and files. Errors keep the code itself (their `cause`); the sentence around
 * these words is made where the error is told to someone.
 */

const meanings: Readonly<Record<string, string>> = {
  EADDRINUSE: "the port is in use",
  EADDRNOTAVAIL: "no such address here",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ENOTFOUND: "unknown host",
  EAI_AGAIN: "unknown host",
  ECONNREFUSED: "the port is closed",
  ENOENT: "no such file or folder",
  EISDIR: "it is a folder",
  ENOTDIR: "a part of the path is not a folder",
  EEXIST: "it already exists",
  EROFS: "the file system is read-only",
  ENOSPC: "no space left"
}

/** The system's code of a failure (EADDRINUSE, ENOENT, ...), when it has one. */
export const errnoOf = (cause: unknown): string | undefined => {
  const code = (cause as { readonly code?: unknown } | undefined)?.code
  return typeof code === "string" ? code : undefined
}

/** What the system's `code` means; `fallback` (or the code itself) for a code not in the table. */
export const errnoWords = (code: string | undefined, fallback = ""): string =>
  (code === undefined ? undefined : meanings[code]) ?? (fallback || `failed (${code ?? "unknown error"})`)

/** The words for whatever a system call failed with: its code's meaning, else its own message. */
export const causeWords = (cause: unknown): string =>
  errnoWords(errnoOf(cause), cause instanceof Error ? cause.message : String(cause))
