import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vitest/config"
import { embeddedPage } from "../scripts/build.js"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * How `npm test` runs the tests (scripts/test.ts passes this file). The tests mostly wait on
 * sockets, terminals and a browser, so five workers share the two cores; a worker keeps its
 * modules from one file to the next (no isolation: each file owns and releases what it
 * opens). The CLI is bundled once for every worker (global-setup.ts), and so are the pages.
 */

/**
 * The files that take longest, started first so that the run does not end on one of them
 * alone, and in turns: one that mostly waits (on a terminal, a timeout, a game at a set
 * pace), then one that mostly computes, so that the cores have work while the waiting ones
 * wait. Vitest would order by the last run's times, and a clean clone has none.
 */
const longest = [
  "kit-proxy-tmux",
  "fleet-faults",
  "host-hostile",
  "kit-check-client-bugs",
  "web-hostile",
  "kit-check-server-truth",
  "kit-check-server-started",
  "binary",
  "recording",
  "kit-check-client",
  "bot-play",
  "serve-cli",
  "host-operations",
  "last-display",
  "kit-check-server-broken",
  "visibility",
  "kit-check-server",
  "web-browser",
  "network",
  "properties",
  "host-cli",
  "server-ghosts",
  "archive-crash",
  "host-browser",
  "bot-signals"
].map((name) => `/test/${name}.test.ts`)

const rank = (file: TestSpecification) => {
  const at = longest.findIndex((suffix) => file.moduleId.endsWith(suffix))
  return at === -1 ? longest.length : at
}

class LongestFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>) {
    const sorted = await super.sort(files)
    return sorted.map((file, index) => ({ file, index })).sort((a, b) => rank(a.file) - rank(b.file) || a.index - b.index).map(({ file }) => file)
  }
}

/**
 * The pages' scripts as the build embeds them, bundled once for the run in this process, not
 * with esbuild's synchronous API in each worker (a process of its own each time).
 */
const pages = new Map<string, Promise<string> | undefined>()
const pagesEmbedded: Plugin = {
  name: "nuggets-pages-embedded",
  enforce: "pre",
  load: (id) => {
    if (!pages.has(id)) pages.set(id, embeddedPage(id))
    return pages.get(id)
  }
}

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  plugins: [pagesEmbedded],
  test: {
    pool: "forks",
    isolate: false,
    maxWorkers: 5,
    minWorkers: 5,
    testTimeout: 30_000,
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: LongestFirst }
  }
})
