// A job's run waits on work it cannot stop itself (a node's call, which on the local node runs in process to its
// end): it lets go of that work as soon as the job's signal is aborted, so that cancelling a job takes effect at once.

/**
 * `work`, or the signal's reason as soon as it is aborted; `work` itself goes on (its failure then ignored).
 * @example const read = await abortable(nodes.call(node, request, job.signal), job.signal)
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {})
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason)
    signal.addEventListener('abort', aborted, { once: true })
    work.then(
      (value) => {
        signal.removeEventListener('abort', aborted)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', aborted)
        reject(error)
      },
    )
  })
}
