// Waiting in tests: for a condition to hold, or for a promise the test resolves itself.

/** Polls `probe` until it answers something truthy; fails the test after `timeoutMs`, naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T> | T,
  timeoutMs = 5_000,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value as NonNullable<T>
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
    await Bun.sleep(5)
  }
}

/** A promise with its `resolve` (and `reject`) at hand, to release a stalled step when the test says so. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((done, fail) => {
    resolve = done
    reject = fail
  })
  return { promise, resolve, reject }
}
