// Whether the runtime serves its sites now: its nginx running and PHP-FPM installed, or why not (a program missing,
// the sites' port taken by another program, an nginx that would not start), read from its pid file, so cheap to ask
// often. The sites' PHP-FPM masters are each its site's: one that will not start fails that site, not the node.

import type { NodeReadiness, NodeUnreadiness } from '../contract.ts'
import { findSandbox } from './binaries.ts'
import type { RuntimeCore } from './runtime-core.ts'

const ready: NodeReadiness = { ready: true, reasons: [] }

/** nginx's words for a port another program holds: `bind() to 0.0.0.0:80 failed (98: Address already in use)`. */
const bindRefused = /bind\(\) to (\S+?):(\d+) failed \(98: Address already in use\)/

/**
 * What a master said without its times and pids (`2026/11/29 07:06:50 [emerg] 123#123:`, `[29-Nov-2026 07:06:50]`):
 * a failure repeated by every attempt reads the same, so it is told once, not at each attempt.
 */
const timeless = (text: string) =>
  text
    .replace(/\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /g, '')
    .replace(/\[\d\d-\w{3}-\d{4} \d\d:\d\d:\d\d\] /g, '')
    .replace(/\b\d+#\d+: /g, '')

/** Why a start of the masters failed, as the node reports it. */
export function startFailureReason(failure: string): NodeUnreadiness {
  const bind = bindRefused.exec(failure)
  if (bind)
    return {
      code: 'port_taken',
      message: `port ${bind[2]} is taken by another program (nginx: ${bind[0]}): stop it (Debian's own nginx: systemctl disable --now nginx) or give the node other ports (SITES_HTTP_PORT, SITES_HTTPS_PORT); the node tries again on its own, within a minute`,
    }
  return {
    code: 'stack_failed',
    message: `${timeless(failure).slice(0, 1500)} (the node tries again on its own, within a minute)`,
  }
}

/** The runtime's readiness now; `lastFailure` is what its last start of the masters threw (null after a success). */
export async function readinessOf(core: RuntimeCore, lastFailure: string | null): Promise<NodeReadiness> {
  // Files laid out only, by the operator's choice: nothing needs to run.
  if (core.settings.filesOnly) return ready
  const setup = core.settings.setupCommand ?? 'npm run agent -- setup'
  if (!core.servable) {
    const missing = [...(core.binaries.nginx ? [] : ['nginx']), ...(core.binaries.phpFpm ? [] : ['php-fpm'])]
    return {
      ready: false,
      reasons: missing.map((program) => ({
        code: 'binary_missing',
        message: `${program} is not installed: \`${setup}\` installs it`,
      })),
    }
  }
  // Every site's PHP runs in its sandbox: without bubblewrap no site's master can start.
  if (findSandbox() === null)
    return {
      ready: false,
      reasons: [{ code: 'binary_missing', message: `bubblewrap is not installed: \`${setup}\` installs it` }],
    }
  let down: string[]
  try {
    const stack = await core.servingStack()
    down = stack ? [stack.nginx].filter((m) => m.running() === null).map((m) => m.spec.name) : []
  } catch (error) {
    return { ready: false, reasons: [startFailureReason((error as Error).message)] }
  }
  if (down.length === 0) return ready
  if (lastFailure) return { ready: false, reasons: [startFailureReason(lastFailure)] }
  return {
    ready: false,
    reasons: [
      {
        code: 'not_running',
        message: `${down.join(' and ')} not running: the node has not started serving yet, or ${down.length > 1 ? 'they' : 'it'} stopped (the node starts ${down.length > 1 ? 'them' : 'it'} again within seconds)`,
      },
    ],
  }
}
