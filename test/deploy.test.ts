import { describe, expect, it } from "vitest"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { systemProgram } from "../scripts/programs.js"

/** The deployment files, held to what checks them here: the systemd unit to systemd-analyze. */

const unit = readFileSync("deploy/nuggets-host@.service", "utf8")

/** `systemd-analyze verify` of the unit as an instance, its program at `program`: the exit status and what it said. */
const verify = (program: string | undefined) => {
  const dir = mkdtempSync(join(tmpdir(), "nuggets-unit-"))
  try {
    let executable = program
    if (executable === undefined) {
      executable = join(dir, "nuggets")
      writeFileSync(executable, "#!/bin/sh\n")
      chmodSync(executable, 0o755)
    }
    writeFileSync(join(dir, "nuggets-host@.service"), unit.replaceAll("/usr/local/bin/nuggets", executable))
    const result = spawnSync(systemProgram("systemd-analyze"), ["verify", "./nuggets-host@main.service"], { cwd: dir, encoding: "utf8" })
    return { status: result.status, said: `${result.stdout}${result.stderr}`.trim() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe("deploy/nuggets-host@.service", () => {
  it("is a unit systemd-analyze verify finds nothing wrong with, and the check can fail", () => {
    expect(verify(undefined)).toEqual({ status: 0, said: "" })
    expect(verify("/nonexistent/nuggets")).toMatchObject({ status: 1, said: expect.stringContaining("is not executable") })
  })

  it("runs the host with a dynamic user, its own state directory, a restart on failure and a stop timeout above the games' end", () => {
    for (const line of ["DynamicUser=yes", "StateDirectory=nuggets/%i", "Restart=on-failure", "TimeoutStopSec=90"]) expect(unit).toContain(line)
    expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/nuggets host /m)
  })
})
