import { onTestFinished } from "vitest"

/**
 * The one way a test cleans up after itself: what it opens (a server, a socket, a page, a
 * folder) is owned by the test and released when the test finishes, however it ends, the
 * last opened first, as a Scope's finalizers run. Effect tests use their own scope instead
 * (`it.scoped`, `acquireRelease`); what a whole file shares is released in its `afterAll`.
 */
export const owned = <A>(resource: A, release: (resource: A) => unknown): A => {
  onTestFinished(async () => {
    await release(resource)
  })
  return resource
}
