// The `agent` node driver: each operation is a command for the node's agent (`npm run agent` on the node), which
// dials the panel for work, so nodes need no inbound port and no certificate of their own.

import { newId } from '../../../core/index.ts'
import type { Node, NodeDriver, SiteSpec } from '../contract.ts'
import type { CommandQueue, CommandRun } from './command-queue.ts'
import { challengeSubject } from './protocol.ts'

/** A run for operations called outside a job (none of the site's jobs' commands supersede it). */
const noRun: CommandRun = { jobId: 'none', attempt: 0 }

/** The agent driver, on the panel's command queue. */
export function createAgentDriver(queue: CommandQueue): NodeDriver {
  const siteOperation =
    (operation: 'provision' | 'update' | 'suspend' | 'unsuspend' | 'delete') =>
    (node: Node, site: SiteSpec, signal: AbortSignal, run?: CommandRun) =>
      queue.send(node.id, operation, site.id, site, run ?? noRun, signal).then(() => {})
  return {
    name: 'agent',
    description:
      'A remote node running the Plinth node agent (`npm run agent`), which dials the panel for its commands.',
    provision: siteOperation('provision'),
    update: siteOperation('update'),
    suspend: siteOperation('suspend'),
    unsuspend: siteOperation('unsuspend'),
    delete: siteOperation('delete'),
    async report(node, site) {
      const report = await queue.send(
        node.id,
        'report',
        site.id,
        site,
        { jobId: 'report', attempt: 0 },
        AbortSignal.timeout(30_000),
      )
      return report.report ?? { state: 'absent', diskBytes: 0 }
    },
    async installCertificate(node, siteId, certificate, signal, run) {
      const payload = { siteId, certificate }
      await queue.send(node.id, 'install-certificate', siteId, payload, run ?? noRun, signal)
    },
    async removeCertificate(node, siteId, signal, run) {
      await queue.send(node.id, 'remove-certificate', siteId, { siteId }, run ?? noRun, signal)
    },
    async putChallenge(node, challenge, signal, run) {
      await queue.send(node.id, 'put-challenge', challengeSubject, challenge, run ?? noRun, signal)
    },
    async removeChallenge(node, token, signal, run) {
      await queue.send(node.id, 'remove-challenge', challengeSubject, { token }, run ?? noRun, signal)
    },
    async call(node, call, signal) {
      // A subject of its own: calls run beside each other and beside the site's changes (a listing does not wait
      // for a provisioning); the service orders what needs ordering.
      const answer = await queue.send(node.id, 'call', newId('call'), call, noRun, signal)
      return answer.response
    },
  }
}
