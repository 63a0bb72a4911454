import { execFileSync } from "node:child_process"
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A small file system of its own (tmpfs), that a test fills and frees as a disk fills and is cleared. */
export interface SmallDisk {
  readonly path: string
  /** Writes a file until the system says ENOSPC: the disk is full. */
  readonly fill: () => void
  /** Removes what `fill` wrote: space returns. */
  readonly free: () => void
  readonly unmount: () => void
}

const mount = (size: string) => {
  const path = mkdtempSync(join(tmpdir(), "nuggets-disk-"))
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", path], { stdio: "pipe" })
  } catch (error) {
    rmSync(path, { recursive: true, force: true })
    throw error
  }
  return path
}

const unmount = (path: string) => {
  execFileSync("umount", [path])
  rmSync(path, { recursive: true, force: true })
}

/** Why a tmpfs cannot be mounted here (not root, no `mount`, a container that forbids it); undefined when it can. */
export const tmpfsRefused = (): string | undefined => {
  try {
    unmount(mount("64k"))
    return undefined
  } catch (error) {
    const said = (error as { stderr?: Buffer }).stderr?.toString().trim()
    return `mount -t tmpfs refused: ${said || (error as Error).message}`
  }
}

/** A tmpfs of `size` (`8m`), mounted until `unmount`. */
export const mountTmpfs = (size: string): SmallDisk => {
  const path = mount(size)
  const filler = join(path, "filler")
  return {
    path,
    fill: () => {
      const fd = openSync(filler, "a")
      const chunk = Buffer.alloc(64 * 1024)
      try {
        // A short write fills the last pages; the next one is refused.
        for (;;) writeSync(fd, chunk)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error
      } finally {
        closeSync(fd)
      }
    },
    free: () => rmSync(filler, { force: true }),
    unmount: () => unmount(path)
  }
}
