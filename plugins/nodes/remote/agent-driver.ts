// The `agent` node driver: each command is queued for the node's agent (`npm run agent` on the node), which dials the
// panel for work, so nodes need no inbound port and no certificate of their own.

import { newId } from '../../../core/index.ts'
import type { NodeDriver } from '../contract.ts'
import { operationOf } from '../node/operations.ts'
import type { CommandQueue, CommandRun } from './command-queue.ts'

/** A run for commands sent outside a job (none of the site's jobs' commands supersede it). */
const noRun: CommandRun = { jobId: 'none', attempt: 0 }

/** The agent driver, on the panel's command queue. */
export function createAgentDriver(queue: CommandQueue): NodeDriver {
  return {
    name: 'agent',
    description:
      'A remote node running the Plinth node agent (`npm run agent`), which dials the panel for its commands.',
    async send(node, command, signal, run) {
      const operation = operationOf(command.operation)
      if (!operation) throw new Error(`No node operation ${command.operation}`)
      // A command about nothing in particular (a call to a site's service) is a subject of its own: it runs beside
      // the others, and the service orders what needs ordering.
      const subject = operation.subjectOf(command.payload) ?? newId('call')
      return (await queue.send(node.id, command, subject, operation.changes, run ?? noRun, signal)) as never
    },
  }
}
