// The OpenAPI 3.1 document: paths read from the mounted router by @elysiajs/openapi, operations from the declarations.

import { isDeepStrictEqual } from 'node:util'
import { toOpenAPISchema } from '@elysiajs/openapi'
import type { AnyElysia } from 'elysia'
import type { KnownEvent } from '../events/event-consumer.ts'
import type { ScopeDefinition } from '../plugin/define-plugin.ts'
import type { RouteDefinition } from '../plugin/route.ts'
import { fieldCodes } from '../problem/kernel-problems.ts'
import type { ProblemRef } from '../problem/problem-code.ts'
import { operationOf, responseHeaders, schemaRef } from './operation.ts'

/** A route as mounted: its full path and the tag (plugin) it is documented under. */
export interface MountedRoute {
  readonly route: RouteDefinition
  readonly fullPath: string
  readonly tag: string
}

/** What the document describes besides the routes. */
export interface DocumentInput {
  readonly app: AnyElysia
  readonly version: string
  readonly serverUrl: string
  readonly routes: readonly MountedRoute[]
  readonly tags: readonly { readonly name: string; readonly description: string }[]
  readonly scopes: readonly (ScopeDefinition & { readonly plugin: string })[]
  readonly problems: readonly (ProblemRef & { readonly owner: string })[]
  /** Every event kind, documented in the `webhooks` section. */
  readonly events: readonly KnownEvent[]
}

type JsonObject = Record<string, unknown>

function unique(values: readonly string[]): string[] {
  return [...new Set(values)]
}

function problemSchemas(problems: DocumentInput['problems']): JsonObject {
  return {
    ProblemItem: {
      type: 'object',
      required: ['location', 'message'],
      properties: {
        location: {
          type: 'string',
          description: 'Path to the faulty part: `body.name`, `body.scopes.0`, `query.limit`.',
        },
        message: { type: 'string' },
        code: { type: 'string', enum: unique([...Object.keys(fieldCodes), ...problems.map((p) => p.code)]) },
      },
    },
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details. Decide on `code` (and `errors[].code`), never on `detail`.',
      required: ['type', 'title', 'status', 'detail', 'code'],
      properties: {
        type: { type: 'string', description: '`about:blank`: the status and `code` say what happened.' },
        title: { type: 'string', description: 'The reason phrase of the status.' },
        status: { type: 'integer', minimum: 400, maximum: 599 },
        detail: { type: 'string' },
        code: {
          type: 'string',
          enum: unique(problems.map((problem) => problem.code)),
          description: problems
            .map((p) => `- \`${p.code}\` (${p.status}, ${p.owner}): ${p.description}`)
            .join('\n'),
        },
        errors: { type: 'array', items: { $ref: '#/components/schemas/ProblemItem' } },
        requestId: { type: 'string', description: 'Matches the `X-Request-Id` header and the server log.' },
        scope: { type: 'string', description: 'With `insufficient_scope`: the scope the operation needs.' },
        limitBytes: {
          type: 'integer',
          minimum: 1,
          description: 'With `body_too_large`: the largest body this installation accepts, in bytes.',
        },
        accepted: {
          type: 'string',
          description: 'With `unsupported_media_type`: the media type the operation takes its body as.',
        },
        retryAfter: {
          type: 'integer',
          minimum: 1,
          description: 'With `rate_limited` and `too_many_attempts`: seconds to wait, as in `Retry-After`.',
        },
        currentStatus: {
          type: 'string',
          description:
            'With a refused state change (`illegal_site_transition`, `site_busy`, …): the state the resource is in.',
        },
        requestedStatus: {
          type: 'string',
          description: 'With a refused state change: the state asked for.',
        },
        blockers: {
          type: 'array',
          description:
            'With a deletion refused while something depends on the record (`…_in_use`): what, and how many of each.',
          items: {
            type: 'object',
            required: ['name', 'count'],
            properties: {
              name: {
                type: 'string',
                description: 'The dependent, as its plugin names it: `owned-teams`, …',
              },
              count: { type: 'integer', minimum: 1 },
            },
          },
        },
        metric: { type: 'string', description: 'With a limit reached: the limited metric.' },
        limit: { type: 'integer', description: 'With a limit reached: the customer’s limit.' },
        used: { type: 'integer', description: 'With a limit reached: what the customer holds.' },
        requested: { type: 'integer', description: 'With a limit reached: what the request would add.' },
      },
    },
  }
}

/**
 * The `webhooks` section: one entry per event kind, the request the panel sends to an endpoint (Standard
 * Webhooks headers, `{ id, type, timestamp, data }`).
 */
function webhooksOf(events: readonly KnownEvent[], components: JsonObject): JsonObject {
  const header = (description: string) => ({ required: true, schema: { type: 'string' }, description })
  const entries = events
    .toSorted((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
    .map((event) => [
      event.kind,
      {
        post: {
          security: [],
          operationId: `on${event.kind.replace(/(^|[._])([a-z])/g, (_match, _sep, letter: string) => letter.toUpperCase())}`,
          summary: event.description,
          tags: [event.owner],
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              ...header('The event id, `evt_…`; the same on every redelivery.'),
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              ...header('Unix seconds when this attempt was signed.'),
            },
            {
              name: 'webhook-signature',
              in: 'header',
              ...header(
                '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under the endpoint secret; during a rotation two, space-separated.',
              ),
            },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'type', 'timestamp', 'data'],
                  properties: {
                    id: { type: 'string', description: 'The event id, `evt_…`.' },
                    type: { type: 'string', const: event.kind },
                    timestamp: {
                      type: 'string',
                      format: 'date-time',
                      description: 'When the event happened.',
                    },
                    data: schemaRef(event.payload, components),
                  },
                },
              },
            },
          },
          responses: {
            '200': {
              description: 'Any 2xx acknowledges the delivery; anything else is retried (410 disables).',
            },
          },
        },
      },
    ])
  return Object.fromEntries(entries)
}

/** How callers authenticate with the kernel; routes add schemes of their own (`credential`). */
const kernelSecuritySchemes: JsonObject = {
  apiToken: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API token (`plinth_…`) in `Authorization: Bearer`. The array of each security requirement names the scope the operation needs.',
  },
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'plinth_session',
    description:
      'The session cookie set by `POST /api/v1/auth/login`. Every state change made with it needs the `X-CSRF-Token` header login returned, from the panel’s own origin.',
  },
}

/** Builds the document once the panel is mounted. Throws if a declared route is missing from the router. */
export function buildDocument(input: DocumentInput): JsonObject {
  const generated = toOpenAPISchema(input.app, undefined, undefined, undefined, '3.1.0')
  const paths = generated.paths as Record<string, Record<string, unknown>>
  const components: JsonObject = problemSchemas(input.problems)
  const securitySchemes: Record<string, unknown> = { ...kernelSecuritySchemes }
  for (const { route, fullPath, tag } of input.routes) {
    const credential = route.credential
    if (credential) {
      const known = securitySchemes[credential.name]
      if (known !== undefined && !isDeepStrictEqual(known, credential.scheme))
        throw new Error(
          `Security scheme "${credential.name}" of ${route.method} ${fullPath} is already defined otherwise`,
        )
      securitySchemes[credential.name] = credential.scheme
    }
    const path = fullPath.replace(/:([^/]+)/g, '{$1}')
    const method = route.method.toLowerCase()
    const item = paths[path]
    if (!item?.[method]) throw new Error(`Route ${route.method} ${fullPath} is declared but not mounted`)
    item[method] = operationOf(route, tag, path, components)
  }
  // A plugin without routes has no operations to group; the rest are listed by name.
  const used = new Set(input.routes.map((mounted) => mounted.tag))
  const tags = input.tags
    .filter((tag) => used.has(tag.name))
    .toSorted((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const scopeTable = input.scopes
    .map(
      (scope) =>
        `| \`${scope.name}\` | ${scope.plugin} | ${scope.staff === 'platform' ? 'platform staff' : scope.staff ? 'staff' : (scope.roles ?? ['owner', 'admin']).join(', ')} | ${scope.description} |`,
    )
    .join('\n')
  return {
    openapi: '3.1.0',
    info: {
      title: 'Plinth API',
      version: input.version,
      description:
        'The public API of a Plinth hosting control panel. Every operation the web interface performs is here.\n\n' +
        '## Getting a token\n\nOn a fresh installation the operator creates the first staff user and a token with the CLI (`npm run panel -- admin create`, then `npm run panel -- token create`); after that, a signed-in user (`POST /api/v1/auth/login`) or a token carrying `*` creates tokens with `POST /api/v1/api-tokens`. Send it as `Authorization: Bearer plinth_…`. Each operation names the scope it needs.\n\n' +
        '## Scopes\n\n| scope | plugin | held by | grants |\n| --- | --- | --- | --- |\n' +
        `| \`*\` | kernel | anyone | Every permission of the user who created the token |\n${scopeTable}`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Plinth' },
    },
    servers: [{ url: input.serverUrl }],
    tags,
    paths,
    webhooks: webhooksOf(input.events, components),
    components: {
      schemas: components,
      headers: responseHeaders,
      securitySchemes,
    },
    'x-scopes': input.scopes.map(({ name, description, staff, plugin, roles }) => ({
      name,
      description,
      staff: staff ?? false,
      plugin,
      roles: staff ? [] : (roles ?? ['owner', 'admin']),
    })),
  }
}
