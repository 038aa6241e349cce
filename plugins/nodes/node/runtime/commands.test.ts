// A command run as a site's user (NodeSite.run with its timeout or its caller's cancel, and what services start
// with NodeSite.asUser and kill themselves) ends whole when it is killed: nothing it started keeps running as the
// site's user, whatever signal the kill sends (Bun's SIGTERM by default, SIGKILL), whether it forked children or
// ignores SIGTERM. Killing it changes nothing else: its stdin, stdout, stderr and exit code pass through, a command
// killed by a signal still looks killed by that signal, and it runs as the user in a session of its own.

import { afterAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { processesOfUid } from '../testing/serving.ts'
import { type RunAs, run, userCommand } from './commands.ts'

const usable = process.getuid?.() === 0
/** A user of its own, far above any a node gives (no account needed: setpriv takes the number). */
const uid = 4_000_000_000 + Math.floor(Math.random() * 100_000_000)
const home = mkdtempSync('/var/tmp/plinth-kill-')
const as: RunAs = { uid, gid: uid, home }

/** What still runs as the user once the kernel is done with the killed namespace (at most a second). */
async function left(): Promise<number[]> {
  const until = Date.now() + 1000
  for (;;) {
    const pids = processesOfUid(uid)
    if (pids.length === 0 || Date.now() > until) return pids
    await Bun.sleep(20)
  }
}

/** Waits until the command's user runs `count` processes (its programs have started). */
async function started(count: number): Promise<void> {
  const until = Date.now() + 5000
  while (processesOfUid(uid).length < count && Date.now() < until) await Bun.sleep(20)
  expect(processesOfUid(uid).length).toBeGreaterThanOrEqual(count)
}

afterAll(() => {
  for (const pid of processesOfUid(uid))
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  rmSync(home, { recursive: true, force: true })
})

/** Commands that outlived their kill before: each with how many processes it runs as the user once started. */
const stubborn = [
  { what: 'a plain sleep', script: 'sleep 300', count: 2 },
  { what: 'one with a child in the background', script: 'sleep 300 & sleep 301', count: 3 },
  { what: 'one with a daemon in a session of its own', script: '(setsid sleep 300 &); sleep 301', count: 3 },
  { what: 'one ignoring SIGTERM', script: "trap '' TERM; sleep 300", count: 2 },
]

describe.if(usable)('a command run as a site’s user, killed', () => {
  for (const { what, script } of stubborn)
    test(`${what}: run() past its timeout resolves, and nothing of it runs on`, async () => {
      const began = performance.now()
      const result = await run(['/bin/sh', '-c', script], { as, cwd: '/', timeoutMs: 1000 })
      expect(performance.now() - began).toBeLessThan(4000)
      // Killed with Bun's SIGTERM: 128 + 15.
      expect(result.code).toBe(143)
      expect(await left()).toEqual([])
    }, 15_000)

  test('run() cancelled by its signal rejects, and nothing of the command runs on', async () => {
    const controller = new AbortController()
    const running = run(['/bin/sh', '-c', "trap '' TERM; sleep 300 & sleep 301"], {
      as,
      cwd: '/',
      signal: controller.signal,
    })
    await started(3)
    controller.abort()
    await expect(running).rejects.toThrow()
    expect(await left()).toEqual([])
  }, 15_000)

  for (const signal of ['SIGTERM', 'SIGKILL'] as const)
    for (const { what, script, count } of stubborn)
      test(`${what}: its asUser command line killed with ${signal} ends it whole`, async () => {
        const child = Bun.spawn(userCommand(['/bin/sh', '-c', script], as), {
          cwd: '/',
          stdout: 'ignore',
          stderr: 'ignore',
        })
        await started(count)
        child.kill(signal)
        await child.exited
        expect(child.signalCode).toBe(signal)
        expect(await left()).toEqual([])
      }, 15_000)
})

describe.if(usable)('a command run as a site’s user', () => {
  test('gets its stdin, and its stdout, stderr and exit code are its own', async () => {
    const result = await run(['/bin/sh', '-c', 'cat; echo oops >&2; exit 3'], {
      as,
      cwd: '/',
      stdin: 'hello\n',
    })
    expect(result).toEqual({ code: 3, stdout: 'hello\n', stderr: 'oops\n' })
  })

  test('killed by a signal from within, looks killed by it, and no shell around it says so on stderr', async () => {
    for (const [signal, code] of [
      ['SIGKILL', 137],
      ['SIGTERM', 143],
      ['SIGSEGV', 139],
    ] as const) {
      const child = Bun.spawn(userCommand(['/bin/sh', '-c', `kill -${signal.slice(3)} $$`], as), {
        cwd: '/',
        stdout: 'pipe',
        stderr: 'pipe',
      })
      const [stderr, exited] = await Promise.all([new Response(child.stderr).text(), child.exited])
      expect({ signal: child.signalCode, exited, stderr }).toEqual({ signal, exited: code, stderr: '' })
    }
    // An exit code above 128 that names no signal ending a process (SIGTSTP's) is the command's own.
    const stopping = Bun.spawn(userCommand(['/bin/sh', '-c', 'exit 148'], as), { cwd: '/' })
    expect({ exited: await stopping.exited, signal: stopping.signalCode }).toEqual({
      exited: 148,
      signal: null,
    })
  })

  test('runs as the user alone, in a session of its own, in a PID namespace where it sees no process of the node', async () => {
    const result = await run(
      ['/bin/sh', '-c', 'id -u; id -G; echo $$ $(cut -d" " -f6 /proc/$$/stat); ls /proc | grep -c "^[0-9]"'],
      { as, cwd: '/' },
    )
    const [user, groups, session, processes] = result.stdout.trim().split('\n')
    expect([user, groups]).toEqual([String(uid), String(uid)])
    const [pid, sid] = (session ?? '').split(' ')
    expect(sid).toBe(pid)
    // Its namespace's root init, itself, its `ls` and `grep` (and the command substitution's subshell gone by then).
    expect(Number(processes)).toBeLessThanOrEqual(5)
  })
})
