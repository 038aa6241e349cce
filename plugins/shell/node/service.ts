// The `shell` node service: commands and interactive shells in a site's sandbox, on the node the site runs on (the
// panel's local node in process, a remote one through its agent). Everything it is sent is checked again here: the
// node never trusts the panel's checks alone.

import { NodeRefusal, type NodeService, type NodeSite } from '../../nodes/node/contract.ts'
import { checkArgv, siteDirectory as checkSiteDirectory } from '../site-command.ts'
import { createExecutions } from './executions.ts'
import { execOutputCapBytes, execTimeouts, shellServiceName } from './protocol.ts'
import { createTerminals } from './terminals.ts'

const malformed = (what: string) =>
  new NodeRefusal('malformed_shell_request', `Malformed shell request: ${what}`)

const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value.length > 256) throw malformed(what)
  return value
}
const count = (value: unknown, what: string, max: number): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) throw malformed(what)
  return value
}
const size = (value: unknown): { cols: number; rows: number } => {
  const { cols, rows } = (value ?? {}) as Record<string, unknown>
  return { cols: count(cols, 'cols', 1000) || 80, rows: count(rows, 'rows', 1000) || 24 }
}

/** The service, with the commands and shells of this node process. */
export function shellNodeService(): NodeService {
  const executions = createExecutions()
  const terminals = createTerminals()
  return {
    name: shellServiceName,
    async handle(site: NodeSite, request: unknown) {
      if (site.state !== 'active')
        throw new NodeRefusal('site_suspended', 'The site is suspended: its commands and shells wait.')
      const body = (request ?? {}) as Record<string, unknown>
      switch (body.op) {
        case 'exec.start': {
          const argv = checkArgv(body.argv)
          if (typeof argv === 'string') throw malformed(argv)
          const cwd = checkSiteDirectory(body.cwd)
          if (cwd === null) throw malformed('cwd')
          const timeoutMs = count(body.timeoutMs, 'timeoutMs', execTimeouts.maxSeconds * 1000) || 60_000
          const cap =
            count(body.outputCapBytes, 'outputCapBytes', execOutputCapBytes * 8) || execOutputCapBytes
          return { execId: await executions.start(site, { argv, cwd, timeoutMs, outputCapBytes: cap }) }
        }
        case 'exec.read':
          return executions.read(
            site,
            text(body.execId, 'execId'),
            count(body.after, 'after', Number.MAX_SAFE_INTEGER),
            count(body.waitMs, 'waitMs', 30_000),
          )
        case 'exec.cancel':
          executions.cancel(site, text(body.execId, 'execId'))
          return {}
        case 'shell.open':
          return { shellId: terminals.open(site, size(body)) }
        case 'shell.write': {
          const input = body.input === undefined ? null : Buffer.from(base64Input(body.input), 'base64')
          terminals.write(
            site,
            text(body.shellId, 'shellId'),
            input,
            body.resize === undefined ? null : size(body.resize),
          )
          return {}
        }
        case 'shell.read':
          return terminals.read(
            site,
            text(body.shellId, 'shellId'),
            count(body.after, 'after', Number.MAX_SAFE_INTEGER),
            count(body.waitMs, 'waitMs', 30_000),
          )
        case 'shell.close':
          terminals.close(site, text(body.shellId, 'shellId'))
          return {}
        default:
          throw malformed('op')
      }
    },
  }
}

/** Input: base64, at most 1 MiB of it. */
function base64Input(value: unknown): string {
  if (typeof value !== 'string' || value.length > 1_400_000) throw malformed('input')
  return value
}
