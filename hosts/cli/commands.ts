// The CLI's commands, each with its options and its help: bootstrap an installation, manage users and their API
// tokens, back up and restore, check the configuration. `main.ts` reads the command line and runs one.

import { parseArgs } from 'node:util'
import {
  brandDirectoryService,
  cliActor,
  createUser,
  findUserByEmail,
  issueApiToken,
  listApiTokensOf,
  listUsers,
  type Panel,
  prepareUser,
  reviewTokenRequest,
  revokeApiTokenById,
  setUserDisabled,
  tenantDirectoryService,
  type User,
  writeAudit,
} from '../../core/host.ts'
import { codeRoot, SetupError, setupNode } from '../../plugins/nodes/node/index.ts'
import type { StandardSettings } from '../settings.ts'
import { backup, restore } from './backup.ts'
import { CliError } from './cli-error.ts'
import { checkConfiguration, initInstallation } from './config-check.ts'
import { parseDuration } from './duration.ts'
import { passwordHelp, passwordOptions, readPassword } from './password.ts'
import { copyStore, copyTargetOf } from './store-copy.ts'

export { CliError } from './cli-error.ts'

/** What a command runs with. */
export interface CliContext {
  /** The environment the settings are read from. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The settings (a malformed one has already stopped the CLI, every problem listed). */
  settings(): StandardSettings
  /** The installation, opened on first use; a DATA_DIR that holds none is refused, naming the directory. */
  panel(): Promise<Panel>
  /** Prints a line on stderr (warnings). */
  warn(line: string): void
  readonly stdin: NodeJS.ReadStream
}

type OptionSpec = Readonly<Record<string, { readonly type: 'string' | 'boolean' }>>
type Values = Readonly<Record<string, string | boolean | undefined>>

/** One command: its words, options, help, and what it does (the lines it prints on stdout). */
export interface Command {
  readonly words: readonly string[]
  /** `token create --email E --scopes S [...]`. */
  readonly synopsis: string
  readonly summary: string
  /** More about it, for `help <command>`. */
  readonly details: string
  readonly options: OptionSpec
  run(context: CliContext, values: Values): Promise<string[]>
}

const json = { json: { type: 'boolean' } } as const

function text(values: Values, name: string): string | undefined {
  const value = values[name]
  return typeof value === 'string' ? value : undefined
}

function required(values: Values, name: string): string {
  const value = text(values, name)
  if (!value) throw new CliError(`--${name} is required`, 2)
  return value
}

async function userByEmail(panel: Panel, email: string): Promise<User> {
  const user = await findUserByEmail(panel.store.db, email)
  if (!user) throw new CliError(`No user has the e-mail ${email}`)
  return user
}

/** Rows as columns padded to their widest cell, the header first. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  )
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd()
  return [line(header), ...rows.map(line)]
}

/** Creates a user and its `user.create` audit entry in one transaction (hashing before it). */
async function createAuditedUser(panel: Panel, input: Parameters<typeof prepareUser>[0]): Promise<User> {
  const prepared = await prepareUser(input)
  return panel.store.transaction(async (trx) => {
    const user = await createUser(trx, prepared)
    const details = { email: user.email, staffRole: user.staffRole, brandId: user.brandId }
    await writeAudit(trx, cliActor, {
      action: 'user.create',
      subject: { type: 'user', id: user.id },
      customerId: null,
      brandId: user.brandId,
      details,
    })
    return user
  })
}

function expiryOf(values: Values): string | null {
  const expiresIn = text(values, 'expires-in')
  const expiresAt = text(values, 'expires-at')
  if (expiresIn && expiresAt) throw new CliError('Give --expires-in or --expires-at, not both', 2)
  if (expiresAt) return expiresAt
  if (!expiresIn) return null
  const ms = parseDuration(expiresIn)
  if (ms === null) throw new CliError(`--expires-in must look like 30d, 12h or 90m, not "${expiresIn}"`, 2)
  return new Date(Date.now() + ms).toISOString()
}

const adminCreate: Command = {
  words: ['admin', 'create'],
  synopsis: 'admin create --email E [--password-stdin] [--brand ID]',
  summary: 'Create a platform staff user (every scope), or with --brand a brand’s staff.',
  details: passwordHelp,
  options: { email: { type: 'string' }, brand: { type: 'string' }, ...passwordOptions },
  async run(context, values) {
    const email = required(values, 'email')
    const panel = await context.panel()
    const brandId = text(values, 'brand') ?? null
    if (brandId !== null) {
      const brands = panel.service(brandDirectoryService)
      if (!brands || !(await brands.findBrand(brandId)))
        throw new CliError(`--brand: no brand ${brandId} (unknown_brand)`)
    }
    const password = await readPassword(values, context, { confirm: true })
    const user = await createAuditedUser(panel, {
      email,
      password,
      staffRole: brandId ? 'brand' : 'platform',
      brandId,
    })
    return [
      `Created ${brandId ? `staff of brand ${brandId}` : 'platform staff'} user ${user.email} (${user.id})`,
    ]
  },
}

const userCreate: Command = {
  words: ['user', 'create'],
  synopsis: 'user create --email E [--password-stdin]',
  summary: 'Create a plain user, to add to customers’ teams (POST /api/v1/customers/{id}/members).',
  details: passwordHelp,
  options: { email: { type: 'string' }, ...passwordOptions },
  async run(context, values) {
    const email = required(values, 'email')
    const panel = await context.panel()
    const password = await readPassword(values, context, { confirm: true })
    const user = await createAuditedUser(panel, { email, password, staffRole: null })
    return [`Created user ${user.email} (${user.id})`]
  },
}

const userList: Command = {
  words: ['user', 'list'],
  synopsis: 'user list [--json]',
  summary: 'List every user: id, e-mail, staff role, brand, and when disabled.',
  details: 'Oldest first. --json prints a JSON array of the users as GET /api/v1/users/{id} shows them.',
  options: json,
  async run(context, values) {
    const users = await listUsers((await context.panel()).store.db)
    if (values.json === true) return [JSON.stringify(users, null, 2)]
    return table(
      ['ID', 'E-MAIL', 'STAFF', 'BRAND', 'DISABLED'],
      users.map((user) => [
        user.id,
        user.email,
        user.staffRole ?? '-',
        user.brandId ?? '-',
        user.disabledAt ?? '-',
      ]),
    )
  },
}

function disablingCommand(disabled: boolean): Command {
  const verb = disabled ? 'disable' : 'enable'
  return {
    words: ['user', verb],
    synopsis: `user ${verb} --email E`,
    summary: disabled
      ? 'Disable a user: their sessions end and their tokens are refused at once; sign-in is refused.'
      : 'Enable a disabled user: they may sign in again, and their unexpired tokens work again.',
    details: disabled
      ? 'Works while the server runs: the next request with one of their tokens is 401 account_disabled. Tokens are\nnot revoked (`token revoke` does that); `user enable` lets them work again. Audited as user.disable.'
      : 'Sessions ended by disabling stay ended. Audited as user.enable.',
    options: { email: { type: 'string' } },
    async run(context, values) {
      const email = required(values, 'email')
      const panel = await context.panel()
      const user = await userByEmail(panel, email)
      const done = await setUserDisabled(panel.store, user.id, disabled)
      if (!done) throw new CliError(`No user has the e-mail ${email}`)
      if (!done.changed)
        return [
          disabled
            ? `User ${done.user.email} (${done.user.id}) was already disabled (since ${done.user.disabledAt}); nothing changed`
            : `User ${done.user.email} (${done.user.id}) is not disabled; nothing changed`,
        ]
      return [
        disabled
          ? `Disabled user ${done.user.email} (${done.user.id}): their sessions are ended and their tokens refused until \`user enable\``
          : `Enabled user ${done.user.email} (${done.user.id})`,
      ]
    },
  }
}

const tokenCreate: Command = {
  words: ['token', 'create'],
  synopsis:
    'token create --email E --scopes S [--customer ID] [--expires-in 30d | --expires-at ISO] [--name N]',
  summary: 'Create an API token for user E; prints the token alone on the last line (shown once).',
  details:
    "S is comma-separated (site:read,site:create) or '*' (every permission of the user). The token never holds more\nthan its user does when it is used. Default lifetime 90 days, at most 365.",
  options: {
    email: { type: 'string' },
    scopes: { type: 'string' },
    customer: { type: 'string' },
    'expires-in': { type: 'string' },
    'expires-at': { type: 'string' },
    name: { type: 'string' },
  },
  async run(context, values) {
    const email = required(values, 'email')
    const scopes = required(values, 'scopes')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean)
    if (scopes.length === 0) throw new CliError('--scopes names no scope', 2)
    const expiresAt = expiryOf(values)
    const panel = await context.panel()
    const user = await userByEmail(panel, email)
    const customerId = text(values, 'customer') ?? null
    const caller = await panel.callerOf(user)
    const request = { name: text(values, 'name') ?? 'cli', scopes, customerId, expiresAt }
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
    if (user.disabledAt !== null)
      context.warn(`warning: ${user.email} is disabled: the token is refused until \`user enable\``)
    const issued = await panel.store.transaction(async (trx) => {
      const result = await issueApiToken(trx, user, request, policy)
      await writeAudit(
        trx,
        { ...cliActor, userId: user.id },
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
  },
}

const tokenList: Command = {
  words: ['token', 'list'],
  synopsis: 'token list --email E [--json]',
  summary: 'List a user’s tokens that are not revoked: ids, names, scopes, customer, expiry, last use.',
  details: 'Never their secrets (only hashes are stored). Expired tokens are listed, marked so.',
  options: { email: { type: 'string' }, ...json },
  async run(context, values) {
    const email = required(values, 'email')
    const panel = await context.panel()
    const tokens = await listApiTokensOf(panel.store.db, (await userByEmail(panel, email)).id)
    if (values.json === true) return [JSON.stringify(tokens, null, 2)]
    const now = Date.now()
    return table(
      ['ID', 'NAME', 'SCOPES', 'CUSTOMER', 'EXPIRES', 'LAST USED'],
      tokens.map((token) => [
        token.id,
        token.name,
        token.scopes.join(','),
        token.customerId ?? '-',
        `${token.expiresAt}${Date.parse(token.expiresAt) <= now ? ' (expired)' : ''}`,
        token.lastUsedAt ?? 'never',
      ]),
    )
  },
}

const tokenRevoke: Command = {
  words: ['token', 'revoke'],
  synopsis: 'token revoke --id tok_…',
  summary: 'Revoke any user’s token: the next request with it is 401, also while the server runs.',
  details: 'Find the id with `token list --email E`. Audited as token.revoke.',
  options: { id: { type: 'string' } },
  async run(context, values) {
    const id = required(values, 'id')
    if (!/^tok_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))
      throw new CliError(`--id must be a token id (tok_…), not "${id}"`, 2)
    const revoked = await revokeApiTokenById((await context.panel()).store, id)
    if (!revoked) throw new CliError(`No live token ${id} (unknown, or already revoked)`)
    return [`Revoked token ${revoked.id} (${revoked.name}) of user ${revoked.userId}`]
  },
}

const init: Command = {
  words: ['init'],
  synopsis: 'init',
  summary: 'Create the installation in DATA_DIR: the store (migrated) and its secret.',
  details:
    'Other commands refuse a DATA_DIR without an installation, so a mistyped one does not quietly become a second,\nempty installation. `npm start` makes one too. On an existing installation, init only applies pending migrations.',
  options: {},
  run: async (context) => initInstallation(context.settings()),
}

const backupCommand: Command = {
  words: ['backup'],
  synopsis: 'backup --to FILE',
  summary:
    'Write a consistent snapshot of the store to FILE, and its secret to FILE.secret.key (both mode 0600).',
  details:
    'Safe while the server runs (SQLite VACUUM INTO: one snapshot, writes meanwhile are wholly in it or not at all).\nNever replaces an existing file. With PLINTH_SECRET set, no secret file is written: keep PLINTH_SECRET with the\nbackup. The embedded SQLite store only (with DATABASE_URL, use pg_dump).',
  options: { to: { type: 'string' } },
  run: async (context, values) => backup(context.settings(), context.env, required(values, 'to')),
}

const restoreCommand: Command = {
  words: ['restore'],
  synopsis: 'restore --from FILE [--force]',
  summary: 'Put a snapshot made by `backup` (and FILE.secret.key) into DATA_DIR.',
  details:
    'Checks FILE is a Plinth store (SQLite, intact, with the kernel’s migrations). Refuses while a server or another\nCLI has DATA_DIR’s store open (stop it first), and refuses to replace an existing installation unless --force.\nNeeds FILE.secret.key beside FILE, or PLINTH_SECRET set to the secret the backup was made with.',
  options: { from: { type: 'string' }, force: { type: 'boolean' } },
  run: async (context, values) =>
    restore(context.settings(), context.env, required(values, 'from'), values.force === true),
}

const storeCopy: Command = {
  words: ['store', 'copy'],
  synopsis: 'store copy --to postgres://… [--schema NAME]',
  summary:
    'Copy the installation in DATA_DIR (SQLite) into an empty PostgreSQL database, every table’s rows counted on both sides.',
  details:
    'Makes the tables with the same migrations (PLINTH_CONFIG’s plugins too), then copies every table’s rows as they\nare, so sealed secrets stay sealed. Reads DATA_DIR’s store in one read transaction (a consistent snapshot; safe\nwhile the server runs, but what it writes afterwards is not copied: stop it before the final copy). Refuses a\ntarget schema that holds any table, writing nothing; a failed copy puts the target back as it was found.\n--schema fills that schema (made if missing), as DATABASE_SCHEMA would name it. The instances on PostgreSQL need\nthis installation’s secret (DATA_DIR/secret.key or PLINTH_SECRET): the report says which.',
  options: { to: { type: 'string' }, schema: { type: 'string' } },
  run: async (context, values) =>
    copyStore(context.settings(), copyTargetOf(text(values, 'to'), text(values, 'schema'))),
}

const configCheck: Command = {
  words: ['config', 'check'],
  synopsis: 'config check',
  summary:
    'Read every setting and PLINTH_CONFIG and build the panel without serving: `ok`, or every problem.',
  details:
    'Prints each problem on its own line on stderr and exits 2, or `ok` and exits 0. Builds the panel on a throwaway\nstore, so the installation in DATA_DIR is not touched; says whether DATA_DIR holds one.',
  options: {},
  run: async (context) => checkConfiguration(context.env),
}

const nodeSetup: Command = {
  words: ['node', 'setup'],
  synopsis: 'node setup',
  summary: 'Install from Debian what the local node needs to serve sites, without starting system services.',
  details:
    'nginx, PHP-FPM with the PHP CLI, and what each node module of this install needs (WordPress and PHP’s MySQL\ndriver, MariaDB’s server, bubblewrap, OpenSSH’s sftp-server, zip): only what is missing, as root, with apt-get.\nSystem services stay stopped (the node runs its own nginx, PHP-FPM and MariaDB). Says what it installed. A remote\nnode runs `npm run agent -- setup` instead.',
  options: {},
  async run() {
    try {
      return await setupNode({ installRoot: codeRoot })
    } catch (error) {
      if (error instanceof SetupError) throw new CliError(error.message)
      throw error
    }
  },
}

const version: Command = {
  words: ['version'],
  synopsis: 'version',
  summary: 'Print the version of Plinth.',
  details: 'The version in package.json.',
  options: {},
  async run() {
    const packageJson = (await Bun.file(new URL('../../package.json', import.meta.url)).json()) as {
      version: string
    }
    return [packageJson.version]
  },
}

/** Every command, in the order help lists them. */
export const commands: readonly Command[] = [
  init,
  adminCreate,
  userCreate,
  userList,
  disablingCommand(true),
  disablingCommand(false),
  tokenCreate,
  tokenList,
  tokenRevoke,
  backupCommand,
  restoreCommand,
  storeCopy,
  configCheck,
  nodeSetup,
  version,
]

/** Commands that need no installation: the others open DATA_DIR's, refusing one that holds none. */
export const standalone: ReadonlySet<Command> = new Set([
  init,
  backupCommand,
  restoreCommand,
  storeCopy,
  configCheck,
  nodeSetup,
  version,
])

export const usage = `Usage: npm run panel -- <command> [options]

Commands:
${commands.map((command) => `  ${command.synopsis}\n      ${command.summary}`).join('\n')}
  help [command]
      This help, or a command's (also: <command> --help).

Settings come from the environment (DATA_DIR, PLINTH_CONFIG, …: docs/operators.md), as for npm start.
`

/** The help of one command. */
export function helpOf(command: Command): string {
  return `Usage: npm run panel -- ${command.synopsis}

${command.summary}

${command.details}
`
}

/** The command `argv` starts with, and the rest of it; null when it names none. */
export function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  for (const command of commands) {
    if (command.words.every((word, index) => argv[index] === word))
      return { command, rest: argv.slice(command.words.length) }
  }
  return null
}

/** The refusal of a command line naming no command: the commands it may have meant, or the usage. */
export function unknownCommand(argv: readonly string[]): CliError {
  const [first] = argv
  const near = commands.filter((command) => command.words[0] === first)
  const list =
    near.length > 0
      ? `Commands starting with "${first}":\n${near.map((c) => `  ${c.synopsis}`).join('\n')}\n`
      : usage
  return new CliError(`Unknown command "${argv.join(' ')}"\n\n${list}`, 2)
}

/** The options of a command line for `command`; bad usage is exit 2 with the command's help. */
export function optionsOf(command: Command, args: readonly string[]): Values {
  try {
    return parseArgs({ args: [...args], options: command.options, strict: true, allowPositionals: false })
      .values as Values
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${helpOf(command)}`, 2)
  }
}

/** Runs one command line (after help has been handled); returns the lines to print on stdout. */
export async function runCommand(context: CliContext, argv: readonly string[]): Promise<string[]> {
  const found = findCommand(argv)
  if (!found) throw unknownCommand(argv)
  return found.command.run(context, optionsOf(found.command, found.rest))
}
