// What the HTTP benchmarks share: the standalone server started as `npm start` runs it, the CLI for a staff token,
// and percentiles for the figures they print.

import { join } from 'node:path'

/** The repository root: where the spawned server and CLI run. */
export const root = join(import.meta.dir, '..')

/** Runs `bun <args>` in the repository with `env`; resolves to its stdout, throws on a non-zero exit. */
export async function runBun(args: string[], env: Record<string, string>): Promise<string> {
  const child = Bun.spawn([process.execPath, ...args], {
    cwd: root,
    // Request log lines off, as in the earlier figures: their cost is measured apart (docs/performance.md).
    env: { ...process.env, LOG_REQUESTS: '0', LOCAL_SITES: 'files', ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const output = await new Response(child.stdout).text()
  if ((await child.exited) !== 0) throw new Error(`bun ${args.join(' ')} failed: ${output}`)
  return output
}

/** A started server. */
export interface Started {
  readonly url: string
  readonly process: Bun.Subprocess<'ignore', 'pipe', 'inherit'>
}

/** Starts a Bun script with `env` added to this process's environment, and waits for the URL it prints. */
export async function start(script: string, env: Record<string, string | undefined>): Promise<Started> {
  // Request log lines off, as in the earlier figures: their cost is measured apart (docs/performance.md). A setting
  // given as undefined is removed.
  // The local node lays out files only: the bench measures the panel, not nginx and WordPress installs.
  const merged = Object.entries({ ...process.env, LOG_REQUESTS: '0', LOCAL_SITES: 'files', ...env }).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  )
  const child = Bun.spawn([process.execPath, script], {
    cwd: root,
    env: Object.fromEntries(merged),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  })
  const reader = child.stdout.getReader()
  let output = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) throw new Error(`${script} exited: ${output}`)
    output += new TextDecoder().decode(value)
    const url = /listening on (\S+)/.exec(output)?.[1]
    if (url) {
      reader.releaseLock()
      return { url, process: child }
    }
  }
}

/** Starts `hosts/bun/main.ts` (the standalone server, as `npm start` runs it) with `env`. */
export function startServer(env: Record<string, string>): Promise<Started> {
  return start('hosts/bun/main.ts', env)
}

/** Makes a platform staff user with the CLI and answers a `*` token of theirs. */
export async function staffToken(env: Record<string, string>): Promise<string> {
  await runBun(
    ['hosts/cli/main.ts', 'admin', 'create', '--email', 'bench@example.test', '--password', 'x'.repeat(16)],
    env,
  )
  const output = await runBun(
    ['hosts/cli/main.ts', 'token', 'create', '--email', 'bench@example.test', '--scopes', '*'],
    env,
  )
  const token = output.trim().split('\n').at(-1)
  if (!token) throw new Error('the CLI printed no token')
  return token
}

/** The value below which `share` of `values` lie (nearest rank). */
export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(share * sorted.length) - 1))] ?? Number.NaN
}

/** One printed line: p50, p99 and max of `values` (ms). */
export function summary(name: string, values: readonly number[]): string {
  const ms = (value: number) => `${value.toFixed(1).padStart(7)} ms`
  return `${name.padEnd(34)} p50 ${ms(percentile(values, 0.5))}   p99 ${ms(percentile(values, 0.99))}   max ${ms(Math.max(...values))}`
}
