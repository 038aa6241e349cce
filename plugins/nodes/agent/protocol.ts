// What the panel and a node agent say to each other: the agent dials the panel (outbound only, over the panel's
// own HTTPS), asks for work with its agent token, and answers each command. Shared by the panel's routes and the
// agent host (`hosts/agent/`), so both read one definition.

import { type Static, t } from '../../../core/index.ts'
import type { AcmeChallenge, SiteCall, SiteCertificate, SiteSpec } from '../contract.ts'

/** The driver operations an agent carries out: on a site, on its certificate, on ACME challenges. */
export const agentOperations = [
  'provision',
  'update',
  'suspend',
  'unsuspend',
  'delete',
  'report',
  'install-certificate',
  'remove-certificate',
  'put-challenge',
  'remove-challenge',
  'call',
] as const
export type AgentOperation = (typeof agentOperations)[number]

/** What each operation's command carries (its `payload`). */
export interface AgentPayloads {
  readonly provision: SiteSpec
  readonly update: SiteSpec
  readonly suspend: SiteSpec
  readonly unsuspend: SiteSpec
  readonly delete: SiteSpec
  readonly report: SiteSpec
  readonly 'install-certificate': { readonly siteId: string; readonly certificate: SiteCertificate }
  readonly 'remove-certificate': { readonly siteId: string }
  readonly 'put-challenge': AcmeChallenge
  readonly 'remove-challenge': { readonly token: string }
  readonly call: SiteCall
}

/** What the commands on ACME challenges are about: they run one after another, beside every site's. */
export const challengeSubject = 'acme'

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
    capabilities: t.Object(
      {
        nginx: t.Union([t.String({ maxLength: 64 }), t.Null()]),
        php: t.Union([t.String({ maxLength: 64 }), t.Null()]),
        wordpress: t.Union([t.String({ maxLength: 64 }), t.Null()]),
        unixUsers: t.Boolean(),
        mode: t.Union([t.Literal('serving'), t.Literal('files-only')]),
      },
      { description: 'What the node can run.' },
    ),
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

/** One command for the agent: an operation on a site (or on ACME challenges), under a job's attempt. */
export const AgentCommand = t.Object(
  {
    id: t.String({ description: 'The command, `cmd_…`: its answer names it.' }),
    operation: t.Union(agentOperations.map((operation) => t.Literal(operation))),
    jobId: t.String(),
    attempt: t.Integer(),
    subject: t.String({
      description:
        'What the command is about: the site id, or `acme` for challenges. The agent runs the commands on one subject one after another.',
    }),
    payload: t.Unknown({
      description:
        'What the operation needs (nodes contract types): the `SiteSpec` for `provision`, `update`, `suspend`, `unsuspend`, `delete` and `report`; `{ siteId, certificate }` (a `SiteCertificate`, its private key included) for `install-certificate`; `{ siteId }` for `remove-certificate`; the `AcmeChallenge` for `put-challenge`; `{ token }` for `remove-challenge`; the `SiteCall` (`{ siteId, service, request }`) for `call`. Sealed at rest in the panel and cleared once answered; never logged.',
    }),
  },
  { $id: 'AgentCommand' },
)
export type AgentCommand = Static<typeof AgentCommand>

/** The answer to a poll: the node's id (for its traffic reports), and the commands to carry out now. */
export const AgentWork = t.Object(
  { nodeId: t.String(), commands: t.Array(AgentCommand) },
  { $id: 'AgentWork' },
)
export type AgentWork = Static<typeof AgentWork>

/** The outcome of a command. */
export const AgentResult = t.Object(
  {
    ok: t.Boolean(),
    report: t.Optional(
      t.Object({
        state: t.Union([t.Literal('active'), t.Literal('suspended'), t.Literal('absent')]),
        diskBytes: t.Integer({ minimum: 0 }),
        certificate: t.Optional(
          t.Union([t.String({ pattern: '^[0-9a-f]{64}$' }), t.Null()], {
            description: 'The fingerprint of the certificate the site serves over HTTPS, or null.',
          }),
        ),
      }),
    ),
    response: t.Optional(
      t.Unknown({
        description:
          'What the node service answered a `call` (a site’s file, a listing): sealed at rest in the panel and cleared once read.',
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
        /** Whether repeating the command cannot help (an unsafe spec): the job fails at once. */
        final: t.Optional(t.Boolean()),
      }),
    ),
  },
  { $id: 'AgentResult' },
)
export type AgentResult = Static<typeof AgentResult>

/** How long without a poll before the panel calls an agent disconnected. */
export const agentSilenceMs = 60_000
