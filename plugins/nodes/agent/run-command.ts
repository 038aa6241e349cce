// What a command does on the node: the operation it names, carried out on the site runtime with its payload. The
// agent (`hosts/agent/`) runs it; the runtime checks every payload before it names a path after it.

import type { SiteReport } from '../contract.ts'
import type { SiteRuntime } from '../runtime/site-runtime.ts'
import type { AgentCommand, AgentOperation, AgentPayloads } from './protocol.ts'

/** The command's payload, as its operation carries it (the panel wrote it; the runtime checks what it uses). */
const payloadOf = <Operation extends AgentOperation>(command: AgentCommand, _operation: Operation) =>
  command.payload as AgentPayloads[Operation]

/** What a command resolved with: a site's report (`report`), a service's answer (`call`), or nothing. */
export type CommandOutcome =
  | { readonly report: SiteReport }
  | { readonly response: unknown }
  | Record<string, never>

/**
 * Carries out `command` on `runtime` (after starting its masters, unless it only reads a report or calls a
 * service). Throws what the runtime throws: a `JobFailure` or a `NodeRefusal` when repeating cannot help.
 */
export async function runCommand(
  runtime: SiteRuntime,
  command: AgentCommand,
  signal: AbortSignal,
): Promise<CommandOutcome> {
  const { operation } = command
  if (operation === 'report') return { report: await runtime.report(payloadOf(command, operation)) }
  if (operation === 'call') return { response: await runtime.call(payloadOf(command, operation), signal) }
  // The masters run before any change (a no-op once they do; again after one died).
  await runtime.start()
  switch (operation) {
    case 'provision':
    case 'update':
    case 'suspend':
    case 'unsuspend':
    case 'delete':
      await runtime[operation](payloadOf(command, operation), signal)
      return {}
    case 'install-certificate': {
      const { siteId, certificate } = payloadOf(command, operation)
      await runtime.installCertificate(siteId, certificate, signal)
      return {}
    }
    case 'remove-certificate':
      await runtime.removeCertificate(payloadOf(command, operation).siteId, signal)
      return {}
    case 'put-challenge':
      await runtime.putChallenge(payloadOf(command, operation), signal)
      return {}
    case 'remove-challenge':
      await runtime.removeChallenge(payloadOf(command, operation).token, signal)
      return {}
  }
}
