import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vitest/config"
import { embeddedPages, pageAssetsModule } from "../scripts/build.js"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * How `npm test` runs the tests (scripts/test.ts passes this file). The tests mostly wait on
 * sockets, terminals and a browser, so four workers share the two cores; a worker keeps its
 * modules from one file to the next (no isolation: each file owns and releases what it
 * opens). The CLI is bundled once for every worker (global-setup.ts), and so are the pages.
 */

/**
 * The files that take longest, most of it waiting: started first, so that the run does not
 * end on one of them alone. Vitest orders by the last run's times when it has them; a clean
 * clone has none, and would start the largest files first.
 */
const longest = [
  "kit-check-server-truth",
  "web-hostile",
  "host-hostile",
  "kit-proxy-tmux",
  "serve-cli",
  "kit-check-client-bugs",
  "kit-check-server-broken",
  "recording",
  "binary",
  "kit-check-server-started",
  "host-cli",
  "kit-check-server",
  "server-ghosts",
  "kit-check-client",
  "network",
  "web-browser"
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
let pages: Promise<string> | undefined
const pagesEmbedded: Plugin = {
  name: "nuggets-pages-embedded",
  enforce: "pre",
  load: (id) => (pageAssetsModule.test(id) ? (pages ??= embeddedPages()) : undefined)
}

export default defineConfig({
  root: fileURLToPath(new URL("..", import.meta.url)),
  plugins: [pagesEmbedded],
  test: {
    pool: "forks",
    isolate: false,
    maxWorkers: 4,
    minWorkers: 4,
    testTimeout: 30_000,
    globalSetup: ["test/global-setup.ts"],
    sequence: { sequencer: LongestFirst }
  }
})
