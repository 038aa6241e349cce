// The node's `wordpress` service: one operation of an allowlist, run by Plinth's PHP runner (runner.php) with the
// site's PHP as the site's Unix user, loading the site's own WordPress. The runner's refusals come back as
// NodeRefusals with their codes; paths in messages are shown as site paths, never the node's.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { NodeRefusal, type NodeService, type NodeSite } from '../../nodes/node/contract.ts'
import {
  siteUrlPattern,
  slugPattern,
  type WordPressRequest,
  wordpressOps,
  wordpressService,
} from '../protocol.ts'
import { siteFile } from './site-path.ts'

/** The runner, given to `php -r` (which takes code without its opening tag): nothing is written on the node. */
const runner = readFileSync(new URL('./runner.php', import.meta.url), 'utf8').replace(/^<\?php\s*/, '')

/**
 * What the runner prints before its answer: `PLINTH-ANSWER-<nonce> `, the nonce new for each call and given on stdin
 * (the runner keeps it out of WordPress's globals), so a line the site's code prints cannot pass for the answer.
 */
const markerOf = (nonce: string) => `PLINTH-ANSWER-${nonce} `

/** The most read of the runner's stdout and of its stderr: past it, the runner is killed (`wordpress_output_too_large`). */
export const runnerOutputCapBytes = 8 * 1024 * 1024

/** How long one operation may run: installs and search-replace walk a whole site. */
const timeoutMs = 300_000

const slug = new RegExp(slugPattern)
const url = new RegExp(siteUrlPattern)

/** The request checked again on the node: only the allowlist's operations, with arguments of the right shape. */
function checked(request: unknown): WordPressRequest {
  const given = (request ?? {}) as Record<string, unknown>
  const refuse = (why: string) => new NodeRefusal('unknown_wordpress_operation', why)
  if (!wordpressOps.includes(given.op as never))
    throw refuse(`No WordPress operation ${String(given.op).slice(0, 40)}`)
  if (typeof given.domain !== 'string' || !/^[a-z0-9.-]{1,253}$/.test(given.domain)) throw refuse('No domain')
  const text = (name: string, pattern = /^[^\0]{1,4096}$/) =>
    !(name in given) || (typeof given[name] === 'string' && pattern.test(given[name] as string))
  const whole = (name: string) =>
    !(name in given) || (Number.isSafeInteger(given[name]) && (given[name] as number) >= 0)
  const fine =
    text('slug', slug) &&
    text('path') &&
    text('login', /^[A-Za-z0-9_.@-]{1,60}$/) &&
    text('email', /^[^\s@]{1,64}@[^\s@]{1,255}$/) &&
    text('role', /^[a-z0-9_-]{1,60}$/) &&
    text('displayName') &&
    text('password', /^[\x21-\x7e]{12,72}$/) &&
    text('from', url) &&
    text('to', url) &&
    whole('userId') &&
    whole('after') &&
    whole('limit') &&
    (!('visible' in given) || given.visible === null || typeof given.visible === 'boolean')
  if (!fine) throw refuse(`The arguments of ${given.op} are not what the operation takes`)
  return given as WordPressRequest
}

/** The `wordpress` node service. */
export function wordpressNodeService(): NodeService {
  return {
    name: wordpressService,
    async handle(site: NodeSite, request: unknown, signal: AbortSignal): Promise<unknown> {
      const operation = checked(request)
      const input: Record<string, unknown> = { ...operation }
      if (operation.op === 'plugins.install' || operation.op === 'themes.install') {
        input.path = await siteFile(site.home, operation.path)
        input.shownPath = operation.path
      }
      const tmp = join(site.home, 'tmp')
      const nonce = crypto.randomUUID().replaceAll('-', '')
      const result = await runBounded(
        site,
        [
          'php',
          '-d',
          'display_errors=stderr',
          '-d',
          'log_errors=0',
          '-d',
          `open_basedir=${site.home}/:/usr/share/php/`,
          '-d',
          `sys_temp_dir=${tmp}`,
          '-d',
          `upload_tmp_dir=${tmp}`,
          '-d',
          'memory_limit=512M',
          '-r',
          runner,
        ],
        { cwd: join(site.home, 'htdocs'), stdin: JSON.stringify({ ...input, nonce }) },
        signal,
      )
      const marker = markerOf(nonce)
      const shown = (text: string) => text.replaceAll(`${site.home}/`, '/').replaceAll(site.home, '/')
      const line = result.stdout
        .split('\n')
        .reverse()
        .find((candidate) => candidate.startsWith(marker))
      if (!line) {
        const said = shown(result.stderr.trim() || result.stdout.trim()).slice(-1500)
        throw new NodeRefusal(
          'wordpress_error',
          `WordPress failed (exit ${result.code}): ${said || 'no output'}`,
        )
      }
      const answer = JSON.parse(line.slice(marker.length)) as {
        ok?: unknown
        refused?: { code: string; message: string; details?: Record<string, unknown> }
      }
      if (answer.refused)
        throw new NodeRefusal(answer.refused.code, shown(answer.refused.message), answer.refused.details)
      return answer.ok
    },
  }
}

/**
 * Runs `argv` as the site's user, reading at most {@link runnerOutputCapBytes} of stdout and of stderr: a site whose
 * code prints without end (a mu-plugin echoing gigabytes) has the runner killed rather than the node's memory filled.
 */
async function runBounded(
  site: NodeSite,
  argv: readonly string[],
  options: { cwd: string; stdin: string },
  signal: AbortSignal,
): Promise<{ code: number; stdout: string; stderr: string }> {
  signal.throwIfAborted()
  const child = Bun.spawn(site.asUser(argv), {
    cwd: options.cwd,
    env: { ...site.environment },
    stdin: new Blob([options.stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    signal,
  })
  let overflow = false
  const kill = () => {
    // The runner leads a session of its own (setsid): its whole group goes.
    try {
      process.kill(-child.pid, 'SIGKILL')
    } catch {}
    child.kill('SIGKILL')
  }
  const read = async (stream: ReadableStream<Uint8Array>): Promise<string> => {
    const chunks: Uint8Array[] = []
    let size = 0
    for await (const chunk of stream) {
      if (overflow) continue
      size += chunk.length
      if (size > runnerOutputCapBytes) {
        overflow = true
        chunks.length = 0
        kill()
        continue
      }
      chunks.push(chunk)
    }
    return Buffer.concat(chunks).toString('utf8')
  }
  const [stdout, stderr, code] = await Promise.all([read(child.stdout), read(child.stderr), child.exited])
  signal.throwIfAborted()
  if (overflow)
    throw new NodeRefusal(
      'wordpress_output_too_large',
      `WordPress printed more than ${runnerOutputCapBytes / 1024 / 1024} MiB (the site’s code, a must-use plugin or a drop-in, prints without end): the operation was stopped.`,
    )
  return { code, stdout, stderr }
}
