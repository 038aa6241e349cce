// Interactive shells on a node: bash on a real terminal (Bun's spawn with a PTY) in the site's sandbox, written to
// and read from by the panel's relay in calls (so the same works in process and through a node agent). Output is
// kept from the last byte the relay confirmed (`after`), so a repeated read loses nothing. A shell the relay
// stops asking about (the panel went away) ends on its own.

import { NodeRefusal, type NodeSite } from '../../nodes/node/contract.ts'
import { sandboxEnvironment, sandboxed } from './sandbox.ts'

/** Output held for a relay that does not read: past it, the oldest is dropped. */
const maxPending = 1024 * 1024
/** A shell nobody asked about for this long is ended (its relay is gone). */
const orphanAfterMs = 120_000

interface Shell {
  readonly siteId: string
  readonly process: Bun.Subprocess
  /** Output from byte `base` on (bytes before it were read). */
  base: number
  chunks: Uint8Array[]
  size: number
  exit: { code: number | null; signal: string | null } | null
  touched: number
  waiters: Set<() => void>
}

/** The shells of one node process. */
export function createTerminals() {
  const shells = new Map<string, Shell>()
  const reaper = setInterval(() => {
    for (const [id, shell] of shells) {
      if (Date.now() - shell.touched > orphanAfterMs) {
        shell.process.kill('SIGKILL')
        shells.delete(id)
      }
    }
  }, 10_000)
  reaper.unref?.()

  function wake(shell: Shell) {
    for (const waiter of shell.waiters) waiter()
    shell.waiters.clear()
  }

  function find(site: NodeSite, shellId: string): Shell {
    const shell = shells.get(shellId)
    if (!shell || shell.siteId !== site.id)
      throw new NodeRefusal(
        'shell_not_found',
        'The node has no such shell (it ended, or the node restarted).',
      )
    shell.touched = Date.now()
    return shell
  }

  return {
    /** Starts bash on a `cols`×`rows` terminal in the site's sandbox, in `/htdocs`. */
    open(site: NodeSite, size: { cols: number; rows: number }): string {
      const shellId = crypto.randomUUID()
      const box = sandboxed(site, ['/bin/bash', '--noprofile', '--norc', '-i'], {
        cwd: '/htdocs',
        newSession: false,
      })
      let shell: Shell | undefined
      const pending: Uint8Array[] = []
      let child: Bun.Subprocess
      try {
        child = spawnIn(box.argv)
      } catch (error) {
        box.release()
        throw error
      }
      function spawnIn(argv: string[]) {
        return Bun.spawn(argv, {
          env: sandboxEnvironment(site, {
            TERM: 'xterm-256color',
            PS1: '\\u:\\w\\$ ',
            HISTFILE: '/tmp/.bash_history',
          }),
          terminal: {
            cols: size.cols,
            rows: size.rows,
            data(_terminal, data) {
              const bytes = new Uint8Array(data)
              if (!shell) {
                pending.push(bytes)
                return
              }
              shell.chunks.push(bytes)
              shell.size += bytes.length
              while (shell.size > maxPending && shell.chunks.length > 1) {
                const dropped = shell.chunks.shift() as Uint8Array
                shell.size -= dropped.length
                shell.base += dropped.length
              }
              wake(shell)
            },
          },
        })
      }
      void child.exited.finally(box.release)
      shell = {
        siteId: site.id,
        process: child,
        base: 0,
        chunks: pending,
        size: pending.reduce((sum, chunk) => sum + chunk.length, 0),
        exit: null,
        touched: Date.now(),
        waiters: new Set(),
      }
      const opened = shell
      shells.set(shellId, opened)
      void child.exited.then(async () => {
        // The last output comes through the terminal before it reports the end.
        await Bun.sleep(50)
        opened.exit = {
          code: child.signalCode ? null : child.exitCode,
          signal: child.signalCode === null ? null : String(child.signalCode),
        }
        child.terminal?.close()
        wake(opened)
      })
      return shellId
    },

    /** Types `input` (bytes) and/or resizes the terminal. */
    write(
      site: NodeSite,
      shellId: string,
      input: Uint8Array | null,
      resize: { cols: number; rows: number } | null,
    ) {
      const shell = find(site, shellId)
      if (shell.exit) return
      if (resize) shell.process.terminal?.resize(resize.cols, resize.rows)
      if (input && input.length > 0) shell.process.terminal?.write(input)
    },

    /** Output after byte `after`, waiting up to `waitMs` for some; the exit once the shell ended and all is read. */
    async read(site: NodeSite, shellId: string, after: number, waitMs: number) {
      const shell = find(site, shellId)
      // What the relay confirmed having is dropped.
      while (shell.chunks.length > 0 && shell.base + (shell.chunks[0] as Uint8Array).length <= after) {
        const first = shell.chunks.shift() as Uint8Array
        shell.base += first.length
        shell.size -= first.length
      }
      const end = shell.base + shell.size
      if (end <= after && !shell.exit && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, waitMs)
          function done() {
            clearTimeout(timer)
            shell.waiters.delete(done)
            resolve()
          }
          shell.waiters.add(done)
        })
      }
      const all = Buffer.concat(shell.chunks)
      const from = Math.max(0, after - shell.base)
      const output = all.subarray(from, from + 256 * 1024)
      const next = shell.base + from + output.length
      const finished = next >= shell.base + all.length ? shell.exit : null
      if (finished) shells.delete(shellId)
      return { output: output.toString('base64'), next, exit: finished }
    },

    /** Ends the shell and everything it started (its sandbox goes with it). */
    close(site: NodeSite, shellId: string): void {
      const shell = shells.get(shellId)
      if (!shell || shell.siteId !== site.id) return
      shell.process.kill('SIGKILL')
      shells.delete(shellId)
    },
  }
}
