// Every operation a node carries out, written once: what it is about (commands on one subject run one after
// another), whether it changes the node, and what it does. The panel sends one as a command through one path
// (`NodeDirectory.send`); the local node runs it in the panel's process, an agent on its node, both with
// `runOperation`.

import type {
  AcmeChallenge,
  NodeFailure,
  NodeInventory,
  NodeRefusal,
  NodeServiceCall,
  SiteCall,
  SiteCertificate,
  SiteReport,
  SiteResources,
  SiteSpec,
} from './contract.ts'
import type { SiteRuntime } from './runtime/site-runtime.ts'

/** What an operation runs on: the node's site runtime. */
export interface NodeInstance {
  readonly runtime: SiteRuntime
}

/** One operation. */
export interface NodeOperation<Payload, Result> {
  /**
   * What a command of it is about: the agent runs the commands on one subject one after another (a site's changes
   * in order). Null: it runs beside everything (a call to a site's service orders what needs ordering itself).
   */
  subjectOf(payload: Payload): string | null
  /**
   * Whether it changes the node: the masters are started first (a no-op once they run; again after one died), and
   * the panel keeps its command in the node's history once answered. Reads and calls are forgotten once read.
   */
  readonly changes: boolean
  /** Carries it out. Throws a {@link NodeFailure} or a {@link NodeRefusal} when repeating cannot help. */
  run(node: NodeInstance, payload: Payload, signal: AbortSignal): Promise<Result>
}

const operation = <Payload, Result>(definition: NodeOperation<Payload, Result>) => definition

/** A change of a site, carried out by the runtime's operation of the same name. */
const siteChange = (change: 'provision' | 'update' | 'suspend' | 'unsuspend' | 'delete') =>
  operation<SiteSpec, void>({
    subjectOf: (site) => site.id,
    changes: true,
    run: (node, site, signal) => node.runtime[change](site, signal),
  })

/** What the commands on ACME challenges are about: they run one after another, beside every site's. */
export const challengeSubject = 'acme'

/** The operations, by the name commands carry. */
export const nodeOperations = {
  provision: siteChange('provision'),
  /** Applies a changed domain or limits. */
  update: siteChange('update'),
  suspend: siteChange('suspend'),
  unsuspend: siteChange('unsuspend'),
  delete: siteChange('delete'),
  report: operation<SiteSpec, SiteReport>({
    subjectOf: (site) => site.id,
    changes: false,
    run: (node, site) => node.runtime.report(site),
  }),
  'install-certificate': operation<{ readonly siteId: string; readonly certificate: SiteCertificate }, void>({
    subjectOf: ({ siteId }) => siteId,
    changes: true,
    run: (node, { siteId, certificate }, signal) =>
      node.runtime.installCertificate(siteId, certificate, signal),
  }),
  'remove-certificate': operation<{ readonly siteId: string }, void>({
    subjectOf: ({ siteId }) => siteId,
    changes: true,
    run: (node, { siteId }, signal) => node.runtime.removeCertificate(siteId, signal),
  }),
  'put-challenge': operation<AcmeChallenge, void>({
    subjectOf: () => challengeSubject,
    changes: true,
    run: (node, challenge, signal) => node.runtime.putChallenge(challenge, signal),
  }),
  'remove-challenge': operation<{ readonly token: string }, void>({
    subjectOf: () => challengeSubject,
    changes: true,
    run: (node, { token }, signal) => node.runtime.removeChallenge(token, signal),
  }),
  call: operation<SiteCall, unknown>({
    subjectOf: () => null,
    changes: false,
    run: (node, call, signal) => node.runtime.call(call, signal),
  }),
  /** Everything the node holds, for reconciliation: read only, beside every site's commands. */
  inventory: operation<Readonly<Record<string, never>>, NodeInventory>({
    subjectOf: () => null,
    changes: false,
    run: (node) => node.runtime.inventory(),
  }),
  /**
   * What the sites named (default every site the node keeps) use of CPU, memory, processes and disk against their
   * limits, read from the kernel: read only, beside every site's commands.
   */
  resources: operation<{ readonly siteIds?: readonly string[] }, readonly SiteResources[]>({
    subjectOf: () => null,
    changes: false,
    run: (node, payload) => node.runtime.resources(payload?.siteIds),
  }),
  /** A service asked about the node itself (its database server), not one of its sites. */
  'node-call': operation<NodeServiceCall, unknown>({
    subjectOf: () => null,
    changes: false,
    run: (node, call, signal) => node.runtime.nodeCall(call, signal),
  }),
} as const

type Operations = typeof nodeOperations
/** The name of a node operation. */
export type NodeOperationName = keyof Operations
/** What a command of operation `O` carries. */
export type NodePayload<O extends NodeOperationName> =
  Operations[O] extends NodeOperation<infer P, unknown> ? P : never
/** What operation `O` resolves with. */
export type NodeResult<O extends NodeOperationName> =
  Operations[O] extends NodeOperation<never, infer R> ? R : never

/** Every operation's name, for the protocol's schema. */
export const nodeOperationNames = Object.keys(nodeOperations) as NodeOperationName[]

/** A command: an operation and what it carries. */
export interface NodeCommand<O extends NodeOperationName = NodeOperationName> {
  readonly operation: O
  readonly payload: NodePayload<O>
}

/** The command carrying out `operation` with `payload`. */
export function nodeCommand<O extends NodeOperationName>(
  operation: O,
  payload: NodePayload<O>,
): NodeCommand<O> {
  return { operation, payload }
}

/** The operation of a command's name, or undefined for a name this node does not know (a newer panel's). */
export function operationOf(name: string): NodeOperation<unknown, unknown> | undefined {
  return Object.hasOwn(nodeOperations, name)
    ? (nodeOperations[name as NodeOperationName] as NodeOperation<unknown, unknown>)
    : undefined
}

/** Carries out `command` on `node` (its masters started first when it changes the node). */
export async function runOperation<O extends NodeOperationName>(
  node: NodeInstance,
  command: NodeCommand<O>,
  signal: AbortSignal,
): Promise<NodeResult<O>> {
  const found = operationOf(command.operation)
  if (!found) throw new Error(`This node knows no operation ${JSON.stringify(command.operation)}`)
  if (found.changes) await node.runtime.start()
  return (await found.run(node, command.payload, signal)) as NodeResult<O>
}
