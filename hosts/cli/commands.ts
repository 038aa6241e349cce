// The CLI's commands: bootstrap a fresh install (a platform staff user) and mint API tokens for it.

import { parseArgs } from 'node:util'
import {
  brandDirectoryService,
  findUserByEmail,
  insertUser,
  issueApiToken,
  type Panel,
  prepareUser,
  reviewTokenRequest,
  tenantDirectoryService,
  type User,
  writeAudit,
} from '../../core/host.ts'
import { parseDuration } from './duration.ts'

/** A refusal on the command line: printed to stderr, exit code 2 for usage, 1 otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
  }
}

export const usage = `Usage: npm run panel -- <command> [options]

Commands:
  admin create --email E --password P [--brand ID]
      Create a platform staff user (holds every scope), or with --brand a brand's staff.
  user create --email E --password P
      Create a plain user, to add to customers' teams (POST /api/v1/customers/{id}/members).
  token create --email E --scopes S [--customer ID] [--expires-in 30d | --expires-at ISO] [--name N]
      Create an API token for user E; S is comma-separated (site:read,site:create) or '*'.
      Prints the token alone on the last line. It is shown once.
`

function options(args: string[], names: Record<string, { type: 'string' }>) {
  try {
    return parseArgs({ args, options: names, strict: true, allowPositionals: false }).values as Record<
      string,
      string | undefined
    >
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${usage}`, 2)
  }
}

function required(values: Record<string, string | undefined>, name: string): string {
  const value = values[name]
  if (!value) throw new CliError(`--${name} is required\n\n${usage}`, 2)
  return value
}

async function adminCreate(panel: Panel, args: string[]): Promise<string[]> {
  const values = options(args, {
    email: { type: 'string' },
    password: { type: 'string' },
    brand: { type: 'string' },
  })
  const brandId = values.brand ?? null
  if (brandId !== null) {
    const brands = panel.service(brandDirectoryService)
    if (!brands || !(await brands.findBrand(brandId)))
      throw new CliError(`--brand: no brand ${brandId} (unknown_brand)`)
  }
  const user = await createAuditedUser(panel, {
    email: required(values, 'email'),
    password: required(values, 'password'),
    staffRole: brandId ? 'brand' : 'platform',
    brandId,
  })
  return [
    `Created ${brandId ? `staff of brand ${brandId}` : 'platform staff'} user ${user.email} (${user.id})`,
  ]
}

/** Creates a user and its `user.create` audit entry in one transaction (hashing before it). */
async function createAuditedUser(panel: Panel, input: Parameters<typeof prepareUser>[0]): Promise<User> {
  const prepared = await prepareUser(input)
  return panel.store.transaction(async (trx) => {
    const user = await insertUser(trx, prepared)
    const actor = { userId: null, tokenId: null, requestId: null, sourceAddress: 'cli' }
    const details = { email: user.email, staffRole: user.staffRole, brandId: user.brandId }
    await writeAudit(trx, actor, {
      action: 'user.create',
      subject: { type: 'user', id: user.id },
      customerId: null,
      details,
    })
    return user
  })
}

async function userCreate(panel: Panel, args: string[]): Promise<string[]> {
  const values = options(args, { email: { type: 'string' }, password: { type: 'string' } })
  const user = await createAuditedUser(panel, {
    email: required(values, 'email'),
    password: required(values, 'password'),
    staffRole: null,
  })
  return [`Created user ${user.email} (${user.id})`]
}

function expiryOf(values: Record<string, string | undefined>): string | null {
  if (values['expires-in'] && values['expires-at'])
    throw new CliError('Give --expires-in or --expires-at, not both', 2)
  if (values['expires-at']) return values['expires-at']
  if (!values['expires-in']) return null
  const ms = parseDuration(values['expires-in'])
  if (ms === null)
    throw new CliError(`--expires-in must look like 30d, 12h or 90m, not "${values['expires-in']}"`, 2)
  return new Date(Date.now() + ms).toISOString()
}

async function tokenCreate(panel: Panel, args: string[]): Promise<string[]> {
  const values = options(args, {
    email: { type: 'string' },
    scopes: { type: 'string' },
    customer: { type: 'string' },
    'expires-in': { type: 'string' },
    'expires-at': { type: 'string' },
    name: { type: 'string' },
  })
  const email = required(values, 'email')
  const user = await findUserByEmail(panel.store.db, email)
  if (!user) throw new CliError(`No user has the e-mail ${email}`)
  const scopes = required(values, 'scopes')
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean)
  if (scopes.length === 0) throw new CliError('--scopes names no scope', 2)
  const customerId = values.customer ?? null
  const caller = await panel.callerOf(user)
  const request = { name: values.name ?? 'cli', scopes, customerId, expiresAt: expiryOf(values) }
  const policy = {
    defaultDays: panel.limits.tokenDefaultLifetimeDays,
    maxDays: panel.limits.tokenMaxLifetimeDays,
  }
  const refusals = await reviewTokenRequest(panel.store.db, caller, request, {
    directory: panel.service(tenantDirectoryService),
    panelScopes: panel.catalogue.scopeNames,
    policy,
  })
  if (refusals.length > 0) {
    const flag = (location: string) =>
      location.startsWith('body.scopes')
        ? '--scopes'
        : location === 'body.customerId'
          ? '--customer'
          : '--expires'
    throw new CliError(
      refusals.map((item) => `${flag(item.location)}: ${item.message} (${item.code})`).join('\n'),
    )
  }
  const issued = await panel.store.transaction(async (trx) => {
    const result = await issueApiToken(trx, user, request, policy)
    await writeAudit(
      trx,
      { userId: user.id, tokenId: null, requestId: null, sourceAddress: 'cli' },
      {
        action: 'token.create',
        subject: { type: 'token', id: result.record.id },
        customerId,
        details: { name: request.name, scopes, expiresAt: result.record.expiresAt },
      },
    )
    return result
  })
  return [
    `Created token ${issued.record.id} for ${user.email}, scopes ${scopes.join(',')}, expires ${issued.record.expiresAt}`,
    issued.token,
  ]
}

/** Runs one command; returns the lines to print on stdout. */
export async function runCommand(panel: Panel, argv: string[]): Promise<string[]> {
  const [noun, verb, ...rest] = argv
  if (noun === 'admin' && verb === 'create') return adminCreate(panel, rest)
  if (noun === 'user' && verb === 'create') return userCreate(panel, rest)
  if (noun === 'token' && verb === 'create') return tokenCreate(panel, rest)
  throw new CliError(
    noun === undefined || noun === 'help' ? usage : `Unknown command "${argv.join(' ')}"\n\n${usage}`,
    2,
  )
}
