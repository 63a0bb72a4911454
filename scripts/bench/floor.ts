/** Section 3: the I/O floor, the same load against a stand-in that only sends datagrams. */
import * as esbuild from "esbuild"
import { join } from "node:path"
import { root, type ServerProcess, startProcess } from "./process.js"

/** The stand-in, bundled to plain JavaScript like the real server, so both run the same way. */
export const bundleFloorServer = async (dir: string): Promise<string> => {
  const outfile = join(dir, "floor-server.cjs")
  await esbuild.build({
    entryPoints: [join(root, "scripts/bench/floor-server.ts")],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    logLevel: "warning"
  })
  return outfile
}

export const startFloorServer = (script: string, mapFile: string): Promise<ServerProcess> =>
  startProcess([script, mapFile])
