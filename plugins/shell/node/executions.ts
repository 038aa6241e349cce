// Commands running on a node for `POST /sites/{id}/exec`: started in the site's sandbox, their output split into
// lines the panel reads back in order (repeatable: a read names the last line it has), and their stdout and stderr
// kept up to a cap for the result. Kept in the node process's memory: a node restarted meanwhile has forgotten them.

import { NodeRefusal, type NodeSite } from '../../nodes/node/contract.ts'
import type { ExecOutcome, OutputLine } from './protocol.ts'
import { sandboxEnvironment, sandboxed } from './sandbox.ts'

/** Lines kept for the panel to read, per command; later lines only reach the result's capped output. */
const maxLines = 5000
/** Bytes of lines kept likewise (5000 lines of 16 KiB would be 80 MB held in memory). */
const maxLineBytes = 4 * 1024 * 1024
/**
 * What one read answers at most, in JSON: its lines up to 512 KiB (one line always), and with the outcome no more
 * than 7.5 MiB (the outcome comes alone, in the next read, when it would not fit beside the lines), so that a read
 * crosses an agent's answer (8 MiB at most: `agentAnswerLimitBytes`) whatever the command printed.
 */
const readLineBytes = 512 * 1024
const outcomeBytes = 7.5 * 1024 * 1024
/** How long a finished command's outcome waits to be read. */
const keepFinishedMs = 5 * 60_000

interface Execution {
  readonly siteId: string
  readonly lines: OutputLine[]
  /** What `lines` hold, in UTF-8 bytes. */
  lineBytes: number
  outcome: ExecOutcome | null
  kill(): void
  waiters: Set<() => void>
}

/** A stream's bytes cut into lines and captured up to `cap` bytes. */
function collector(stream: OutputLine['stream'], cap: number, line: (entry: OutputLine) => void) {
  const decoder = new TextDecoder()
  const captured: Uint8Array[] = []
  let size = 0
  let truncated = false
  let partial = ''
  return {
    add(chunk: Uint8Array) {
      if (size < cap) {
        const room = cap - size
        captured.push(chunk.length > room ? chunk.subarray(0, room) : chunk)
        if (chunk.length > room) truncated = true
        size += Math.min(room, chunk.length)
      } else if (chunk.length > 0) truncated = true
      const text = partial + decoder.decode(chunk, { stream: true })
      const parts = text.split('\n')
      partial = parts.pop() ?? ''
      for (const part of parts) line({ stream, line: storable(part.replace(/\r$/, '')) })
      // A line that never ends is reported in pieces rather than held without bound.
      if (partial.length > 16_384) {
        line({ stream, line: storable(partial) })
        partial = ''
      }
    },
    end() {
      const rest = partial + decoder.decode()
      if (rest) line({ stream, line: storable(rest) })
      return { text: storable(new TextDecoder().decode(Buffer.concat(captured))), truncated }
    },
  }
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))

/**
 * Output as the panel takes it: a NUL (a binary file printed) as U+FFFD, as a byte that is not UTF-8 already is.
 * The panel refuses text holding NUL in any request (its store keeps none), so an agent's answer with one was
 * refused and the command failed `agent_answer_refused`.
 */
const storable = (text: string) => text.replaceAll('\0', '\uFFFD')

/**
 * The outcome cut to what a read carries: 1 MiB of output in JSON may take 6 (a control character is written
 * `\u0001`), and both streams 12. Each stream larger than a quarter of it is halved until the whole fits, and
 * `truncated` then says so.
 */
function fitOutcome(outcome: ExecOutcome): ExecOutcome {
  let fitted = outcome
  while (jsonBytes(fitted) > outcomeBytes) {
    const half = (text: string) =>
      // Cut between a surrogate pair, its half alone is made U+FFFD: the panel refuses a lone surrogate too.
      jsonBytes(text) > outcomeBytes / 4 ? text.slice(0, Math.floor(text.length / 2)).toWellFormed() : text
    fitted = { ...fitted, stdout: half(fitted.stdout), stderr: half(fitted.stderr), truncated: true }
  }
  return fitted
}

/** The commands of one node process. */
export function createExecutions() {
  const executions = new Map<string, Execution>()

  function wake(execution: Execution) {
    for (const waiter of execution.waiters) waiter()
    execution.waiters.clear()
  }

  function find(site: NodeSite, execId: string): Execution {
    const execution = executions.get(execId)
    if (!execution || execution.siteId !== site.id)
      throw new NodeRefusal(
        'exec_not_found',
        'The node has no such command (it ended long ago, or the node restarted).',
      )
    return execution
  }

  return {
    /** Starts `argv` in the site's sandbox at `cwd`; resolves with its id once it runs. */
    async start(
      site: NodeSite,
      request: { argv: readonly string[]; cwd: string; timeoutMs: number; outputCapBytes: number },
    ): Promise<string> {
      const environment = sandboxEnvironment(site)
      // The directory is looked up inside the sandbox, where links resolve as the command would see them.
      const probing = sandboxed(site, ['/bin/test', '-d', request.cwd], { cwd: '/', newSession: true })
      let found: number
      try {
        found = await Bun.spawn(probing.argv, {
          env: environment,
          stdin: 'ignore',
          stdout: 'ignore',
          stderr: 'ignore',
          timeout: 10_000,
        }).exited
      } finally {
        probing.release()
      }
      if (found !== 0)
        throw new NodeRefusal(
          'working_directory_missing',
          `There is no directory ${request.cwd} in the site.`,
          {
            cwd: request.cwd,
          },
        )
      const execId = crypto.randomUUID()
      const began = performance.now()
      let timedOut = false
      const box = sandboxed(site, request.argv, { cwd: request.cwd, newSession: true })
      let child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
      try {
        child = Bun.spawn(box.argv, { env: environment, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
      } catch (error) {
        box.release()
        throw error
      }
      void child.exited.finally(box.release)
      const execution: Execution = {
        siteId: site.id,
        lines: [],
        lineBytes: 0,
        outcome: null,
        kill: () => child.kill('SIGKILL'),
        waiters: new Set(),
      }
      executions.set(execId, execution)
      const timer = setTimeout(() => {
        timedOut = true
        child.kill('SIGKILL')
      }, request.timeoutMs)
      const push = (entry: OutputLine) => {
        const bytes = Buffer.byteLength(entry.line)
        if (execution.lines.length < maxLines && execution.lineBytes + bytes <= maxLineBytes) {
          execution.lines.push(entry)
          execution.lineBytes += bytes
        }
        wake(execution)
      }
      const stdout = collector('stdout', request.outputCapBytes, push)
      const stderr = collector('stderr', request.outputCapBytes, push)
      const pump = async (stream: ReadableStream<Uint8Array>, into: ReturnType<typeof collector>) => {
        for await (const chunk of stream) into.add(chunk)
      }
      void (async () => {
        await Promise.all([pump(child.stdout, stdout), pump(child.stderr, stderr), child.exited])
        clearTimeout(timer)
        const out = stdout.end()
        const err = stderr.end()
        execution.outcome = fitOutcome({
          exitCode: child.signalCode ? null : child.exitCode,
          signal: child.signalCode === null ? null : String(child.signalCode),
          timedOut,
          durationMs: Math.round(performance.now() - began),
          stdout: out.text,
          stderr: err.text,
          truncated: out.truncated || err.truncated,
        })
        wake(execution)
        setTimeout(() => executions.delete(execId), keepFinishedMs).unref?.()
      })()
      return execId
    },

    /** Lines after line `after` (0: from the first), waiting up to `waitMs` for one; the outcome once it ended. */
    async read(site: NodeSite, execId: string, after: number, waitMs: number) {
      const execution = find(site, execId)
      if (execution.lines.length <= after && !execution.outcome && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, waitMs)
          function done() {
            clearTimeout(timer)
            execution.waiters.delete(done)
            resolve()
          }
          execution.waiters.add(done)
        })
      }
      const lines: OutputLine[] = []
      let bytes = 0
      for (const line of execution.lines.slice(after, after + 500)) {
        const size = jsonBytes(line) + 1
        if (lines.length > 0 && bytes + size > readLineBytes) break
        lines.push(line)
        bytes += size
      }
      const next = after + lines.length
      let finished = next >= execution.lines.length ? execution.outcome : null
      if (finished && lines.length > 0 && bytes + jsonBytes(finished) > outcomeBytes) finished = null
      return { lines, next, outcome: finished }
    },

    /** Kills the command (its whole sandbox goes with it). */
    cancel(site: NodeSite, execId: string): void {
      const execution = executions.get(execId)
      if (execution && execution.siteId === site.id) execution.kill()
    },
  }
}
