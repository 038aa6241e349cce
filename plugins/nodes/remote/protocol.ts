// The panel's schemas of what it and a node agent say to each other (the node's side reads the same shapes as types:
// node/agent/protocol.ts, which these must match, as the type checks at the bottom say).

import { type Static, t } from '../../../core/index.ts'
import { NodeCapabilities } from '../contract.ts'
import type * as Node from '../node/agent/protocol.ts'
import { nodeOperationNames } from '../node/operations.ts'

/** What the agent says of itself when it asks for work. */
export const AgentHello = t.Object(
  {
    session: t.String({
      minLength: 8,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'Picked anew by each run of the agent: commands sent to an earlier run are sent again.',
    }),
    version: t.String({ minLength: 1, maxLength: 64, description: 'The agent’s version.' }),
    capabilities: NodeCapabilities,
    holding: t.Optional(
      t.Array(t.String({ maxLength: 64 }), {
        maxItems: 10_000,
        description:
          'The commands the agent has and has not answered yet. A command sent to this run that it does not list never reached it (the answer to a poll was lost) and is sent again.',
      }),
    ),
    waitSeconds: t.Optional(
      t.Integer({
        minimum: 0,
        maximum: 30,
        description: 'How long to wait for work before answering none (25).',
      }),
    ),
  },
  { $id: 'AgentHello' },
)
export type AgentHello = Static<typeof AgentHello>

/** What an agent stopping says last. */
export const AgentLeaving = t.Object(
  {
    session: t.String({
      minLength: 8,
      maxLength: 64,
      pattern: '^[A-Za-z0-9_-]+$',
      description: 'The run of the agent that stops (its polls’ `session`).',
    }),
  },
  { $id: 'AgentLeaving' },
)
export type AgentLeaving = Static<typeof AgentLeaving>

/** One command for the agent: an operation on a subject, under a job's attempt. */
export const AgentCommand = t.Object(
  {
    id: t.String({ description: 'The command, `cmd_…`: its answer names it.' }),
    operation: t.Union(nodeOperationNames.map((operation) => t.Literal(operation))),
    jobId: t.String(),
    attempt: t.Integer(),
    subject: t.String({
      description:
        'What the command is about: the site id, `acme` for challenges, or the command’s own for a call. The agent runs the commands on one subject one after another.',
    }),
    payload: t.Unknown({
      description:
        'What the operation needs (the node wing’s operations, plugins/nodes/node/operations.ts): the `SiteSpec` for the site’s changes and its report; `{ siteId, certificate }` for `install-certificate`; `{ siteId }` for `remove-certificate`; the `AcmeChallenge` for `put-challenge`; `{ token }` for `remove-challenge`; the `SiteCall` (`{ siteId, service, request }`) for `call`; `{}` for `inventory` (answered with what the node holds: its sites, what belongs to none, what its services keep per site). Sealed at rest in the panel and cleared once answered; never logged.',
    }),
  },
  { $id: 'AgentCommand' },
)
export type AgentCommand = Static<typeof AgentCommand>

/** A node module the agent runs: loaded from its own install. */
export const AgentModule = t.Object(
  {
    name: t.String({ description: 'The module’s name (its plugin’s).' }),
    source: t.String({
      description: 'The file that declares it, below the install’s root (`plugins/files/node/index.ts`).',
    }),
  },
  { $id: 'AgentModule' },
)

/** The answer to a poll: the node's id (for its traffic reports), the modules it runs, the commands to carry out now. */
export const AgentWork = t.Object(
  {
    nodeId: t.String(),
    modules: t.Array(AgentModule, {
      description:
        'The node modules of the installation’s plugins: the agent loads those it does not run yet before carrying out the commands.',
    }),
    commands: t.Array(AgentCommand),
  },
  { $id: 'AgentWork' },
)
export type AgentWork = Static<typeof AgentWork>

/** The outcome of a command. */
export const AgentResult = t.Object(
  {
    ok: t.Boolean(),
    result: t.Optional(
      t.Unknown({
        description:
          'What the operation resolved with: a site’s report, a node service’s answer to a `call` (a site’s file, a listing). Sealed at rest in the panel and cleared once read.',
      }),
    ),
    error: t.Optional(
      t.Object({
        message: t.String({ maxLength: 4000 }),
        code: t.Optional(t.String({ maxLength: 64, pattern: '^[a-z][a-z0-9_]*$' })),
        details: t.Optional(
          t.Record(t.String({ maxLength: 64 }), t.Unknown(), {
            description: 'What a node service said of its refusal besides the code (`call`).',
          }),
        ),
        final: t.Optional(
          t.Boolean({ description: 'Whether repeating the command cannot help: the job fails at once.' }),
        ),
        refusal: t.Optional(
          t.Boolean({
            description: 'Whether it was a node service’s refusal, answered to its caller as such.',
          }),
        ),
      }),
    ),
  },
  { $id: 'AgentResult' },
)
export type AgentResult = Static<typeof AgentResult>

// The node's types and these schemas describe the same messages: a change to one that the other lacks fails here
// (readonly or not, which JSON does not carry, aside).
type Frozen<T> = T extends readonly (infer U)[]
  ? readonly Frozen<U>[]
  : T extends object
    ? { readonly [K in keyof T]: Frozen<T[K]> }
    : T
type Fits<A, B> = [Frozen<A>] extends [Frozen<B>] ? true : false
type Same<A, B> = Fits<A, B> extends true ? Fits<B, A> : false
const agree = <T extends true>(_check?: T) => undefined
agree<Same<Static<typeof NodeCapabilities>, import('../node/contract.ts').NodeCapabilities>>()
agree<Same<AgentHello, Node.AgentHello>>()
agree<Same<AgentLeaving, Node.AgentLeaving>>()
agree<Same<AgentResult, Node.AgentResult>>()
// What the panel sends, the agent reads (its operation names are the panel's literals).
agree<Fits<AgentWork, Node.AgentWork>>()
