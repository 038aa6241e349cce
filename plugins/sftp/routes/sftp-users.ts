// SFTP accounts of a site: create (password shown once, or public keys), list, read, rotate the password, delete.
// The node is told first and the panel records what the node accepted, so a revoked account is never left working
// on the node: a node that cannot be reached changes nothing (503).

import { randomBytes } from 'node:crypto'
import {
  type ChangedResource,
  defineFormat,
  defineRoute,
  FieldErrors,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  type RouteDefinition,
  recorded,
  resourceRoutes,
  t,
  unchanged,
} from '../../../core/index.ts'
import { type Node, NodeRefusal, nodeDirectory } from '../../nodes/contract.ts'
import {
  requireRunningSite,
  runningSiteProblems,
  type SiteRef,
  siteDirectory,
  siteScopes,
} from '../../sites/contract.ts'
import {
  type SftpNodeAccount,
  type SftpNodeInfo,
  type SftpNodeRemoved,
  type SftpNodeRequest,
  SftpUser,
  sftpServiceName,
} from '../contract.ts'
import { checkPublicKey } from '../keys.ts'
import type { SftpUsersTable } from '../migrations.ts'
import { generatePassword } from '../passwords.ts'
import { sftpProblems as problems } from '../problems.ts'
import {
  deleteAccount,
  findAccount,
  insertAccount,
  keysOf,
  type StoredKey,
  siteAccounts,
  toSftpUser,
  updateAccount,
  usernameTaken,
} from '../repository.ts'

const SftpName = defineFormat({
  name: 'sftp-name',
  check: (value) => /^[a-z0-9][a-z0-9-]{0,31}$/.test(value),
  problem: problems.invalid_sftp_name,
})

const CreateSftpUserBody = t.Object(
  {
    name: t.Optional(
      SftpName({
        maxLength: 32,
        description:
          'The account’s name: the login is the site’s handle, `.` and this name (`my-shop.deploy`). Default: 8 random letters and digits.',
      }),
    ),
    password: t.Optional(
      t.Boolean({
        description:
          'Whether a password logs in: the panel generates it and shows it once in the answer. Default true without `publicKeys`, false with them.',
      }),
    ),
    publicKeys: t.Optional(
      t.Array(t.String({ minLength: 1, maxLength: 16_384 }), {
        maxItems: 20,
        description:
          'SSH public keys that log in, one line each as `ssh-keygen` writes them (`ssh-ed25519 AAAA… you@laptop`): Ed25519, ECDSA or RSA of at least 2048 bits (422 `invalid_public_key`).',
      }),
    ),
    readOnly: t.Optional(
      t.Boolean({
        description: 'Only reading: uploads, renames, removals and mkdir are refused. Default false.',
      }),
    ),
    expiresAt: t.Optional(
      t.Union([t.String({ format: 'date-time', maxLength: 64 }), t.Null()], {
        description:
          'When the account stops working: the node refuses logins after it and ends live sessions. Default null, never.',
      }),
    ),
  },
  { $id: 'CreateSftpUserBody' },
)

const SftpUserWithPassword = t.Object(
  {
    ...SftpUser.properties,
    password: t.Optional(
      t.String({
        description:
          'The password, shown this once (only when the account has one): neither the panel nor the node keeps it, the node only an Argon2id hash.',
      }),
    ),
  },
  { $id: 'SftpUserWithPassword' },
)

const SftpUserWithNewPassword = t.Object(
  {
    ...SftpUser.properties,
    password: t.String({ description: 'The new password, shown this once.' }),
  },
  { $id: 'SftpUserWithNewPassword' },
)

const AccountParams = { id: 'site', sftpUserId: 'sftpu' } as const

/** A random account name: 8 lower-case letters and digits. */
function randomName(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('')
}

/** What the audit entries say of an account: never its password or hash. */
const accountDetails = (account: ChangedResource) => ({
  siteId: account.siteId,
  username: account.username,
  passwordEnabled: account.passwordEnabled,
  keyFingerprints: (account.publicKeys as { fingerprint: string }[]).map((key) => key.fingerprint),
  readOnly: account.readOnly,
  expiresAt: account.expiresAt,
})

/** What an account's events carry: the account, never the password an answer shows once. */
const withoutPassword = ({ password: _shownOnce, ...account }: ChangedResource) => account

/** The routes under `/sites/{id}/sftp-users`. */
export function sftpUserRoutes(context: PluginContext): RouteDefinition[] {
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)

  /** The site's node, or `sftp_unavailable` when it has none. */
  async function nodeOf(site: SiteRef): Promise<Node> {
    const node = site.nodeId === null ? null : await nodes.find(site.nodeId)
    if (!node) throw new Problem(problems.sftp_unavailable)
    return node
  }

  /** Asks the site's node's `sftp` service; its refusals become the API's, an unreachable node a 503. */
  async function ask(node: Node, site: SiteRef, request: SftpNodeRequest, signal: AbortSignal) {
    try {
      return await nodes.call(
        node,
        { siteId: site.id, service: sftpServiceName, request },
        AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
      )
    } catch (error) {
      if (error instanceof NodeRefusal) {
        if (error.code === 'sftp_unavailable' || error.code === 'unknown_node_service')
          throw new Problem(problems.sftp_unavailable)
        if (error.code === 'sftp_username_taken')
          throw fieldProblem(problems.sftp_username_taken, 'body.name')
        if (error.code === 'site_not_on_node')
          throw new Problem(runningSiteProblems[1], { extensions: { status: site.status } })
      }
      context.log.warn({ err: error, siteId: site.id, nodeId: node.id }, 'SFTP node call failed')
      throw new Problem(problems.sftp_node_unreachable)
    }
  }

  /** The keys given, checked, each refusal at its index. */
  function checkedKeys(lines: readonly string[]): StoredKey[] {
    const refusals = new FieldErrors()
    const keys: StoredKey[] = []
    const seen = new Set<string>()
    for (const [index, line] of lines.entries()) {
      const key = checkPublicKey(line)
      if ('refused' in key) refusals.add(problems.invalid_public_key, `body.publicKeys.${index}`, key.refused)
      else if (!seen.has(key.openssh)) {
        seen.add(key.openssh)
        keys.push(key)
      }
    }
    if (refusals.hasAny()) throw refusals.toProblem()
    return keys
  }

  /** The expiry given: a time in the future, or null. */
  function expiryOf(given: string | null | undefined): string | null {
    if (given === undefined || given === null) return null
    const at = Date.parse(given)
    if (Number.isNaN(at) || at <= Date.now()) throw fieldProblem(problems.invalid_expiry, 'body.expiresAt')
    return new Date(at).toISOString()
  }

  /** The account as the node keeps it. */
  const nodeAccount = (row: SftpUsersTable, passwordHash: string | null): SftpNodeAccount => ({
    id: row.id,
    username: row.username,
    siteId: row.siteId,
    passwordHash,
    publicKeys: keysOf(row).map((key) => key.openssh),
    readOnly: row.readOnly === 1,
    expiresAt: row.expiresAt,
  })

  /** The account as recorded once the node took it, where it is to be reached. */
  const reachable = (draft: SftpUsersTable, where: SftpNodeInfo): SftpUsersTable => ({
    ...draft,
    port: where.port,
    hostKeyFingerprints: JSON.stringify(where.hostKeyFingerprints),
  })

  return [
    ...resourceRoutes({
      item: SftpUser,
      name: 'sftp_user',
      path: '/sites/:id/sftp-users',
      params: { id: 'site' },
      key: { sftpUserId: 'sftpu' },
      scopes: { read: siteScopes.files, manage: siteScopes.files },
      parent: (db, view, params) => sites.find(db, view, params.id),
      list: {
        summary: 'List a site’s SFTP accounts',
        description: 'The site’s SFTP accounts, oldest first; passwords are never shown again.',
        toItem: toSftpUser,
        handler: ({ db, parent }) => siteAccounts(db, parent.id),
      },
      read: {
        summary: 'Read an SFTP account',
        responses: { 200: SftpUser },
        handler: async ({ db, parent, params }) =>
          toSftpUser(orNotFound(await findAccount(db, parent.id, params.sftpUserId))),
      },
      create: {
        summary: 'Create an SFTP account for a site',
        description:
          'Creates an account on the site’s node that logs in over SFTP (only SFTP: no shell, commands or forwarding) to the site’s files as the site’s Unix user, confined to the site: the client sees the site’s home as `/` (`htdocs/`, `logs/` read-only, `tmp/`). With a password (generated, shown once in this answer; default when no keys are given) and/or SSH public keys, optionally read-only and with an expiry. The answer says where to connect (`host`, `port`) and the host keys’ fingerprints to check on first connecting. The node is told before the panel records the account: a node that does not answer changes nothing (503). Refused for a site that is not running (409 `site_suspended`, `site_not_ready`).',
        body: CreateSftpUserBody,
        showsSecret: true,
        responses: {
          201: {
            description: 'The account, with its password when it has one (shown once).',
            schema: SftpUserWithPassword,
            headers: { Location: 'URL of the account.' },
          },
        },
        problems: [
          ...runningSiteProblems,
          problems.invalid_public_key,
          problems.invalid_sftp_name,
          problems.sftp_credentials_required,
          problems.invalid_expiry,
          problems.sftp_username_taken,
          problems.sftp_unavailable,
          problems.sftp_node_unreachable,
        ],
        record: { details: accountDetails, payload: withoutPassword },
        // The node is told first, outside the transaction (a password is hashed, the node called); the panel
        // records what it accepted, and the node forgets it again if the record then fails.
        async prepare({ db, params, body, view, request }) {
          const site = orNotFound(await sites.find(db, view, params.id))
          requireRunningSite(site)
          const keys = checkedKeys(body.publicKeys ?? [])
          const withPassword = body.password ?? keys.length === 0
          if (!withPassword && keys.length === 0) throw new Problem(problems.sftp_credentials_required)
          const expiresAt = expiryOf(body.expiresAt)
          const username = `${site.handle}.${body.name ?? randomName()}`
          if (await usernameTaken(db, username)) throw fieldProblem(problems.sftp_username_taken, 'body.name')
          const node = await nodeOf(site)
          const password = withPassword ? generatePassword() : null
          const passwordHash = password === null ? null : await Bun.password.hash(password, 'argon2id')
          const now = nowIso()
          const draft: SftpUsersTable = {
            id: newId('sftpu'),
            siteId: site.id,
            customerId: site.customerId,
            nodeId: node.id,
            username,
            passwordEnabled: password === null ? 0 : 1,
            publicKeys: JSON.stringify(keys),
            readOnly: body.readOnly === true ? 1 : 0,
            expiresAt,
            host: node.hostname,
            port: 0,
            hostKeyFingerprints: '[]',
            createdAt: now,
            updatedAt: now,
          }
          const put = { op: 'put', account: nodeAccount(draft, passwordHash) } as const
          const where = (await ask(node, site, put, request.signal)) as SftpNodeInfo
          return { site, node, password, row: reachable(draft, where) }
        },
        undo: ({ site, node, row }) =>
          ask(node, site, { op: 'remove', accountId: row.id }, AbortSignal.timeout(30_000)).then(
            () => {},
            () => {},
          ),
        async handler({ trx, parent, prepared: { password, row } }) {
          requireRunningSite(parent)
          if (await usernameTaken(trx, row.username))
            throw fieldProblem(problems.sftp_username_taken, 'body.name')
          await insertAccount(trx, row)
          return { ...toSftpUser(row), ...(password === null ? {} : { password }) }
        },
      },
      remove: {
        summary: 'Delete an SFTP account',
        description:
          'Removes the account from the node, which ends its live sessions at once, then from the panel. Works on a suspended site too (revoking access is always allowed). A node that does not answer changes nothing (503).',
        responses: { 204: { description: 'Deleted; its sessions are ended.' } },
        problems: [problems.sftp_node_unreachable],
        async prepare({ db, params, view, request }) {
          const site = orNotFound(await sites.find(db, view, params.id))
          const row = orNotFound(await findAccount(db, site.id, params.sftpUserId))
          const node = site.nodeId === null ? null : await nodes.find(site.nodeId)
          if (!node) return { row, sessionsEnded: 0 }
          try {
            const removed = await ask(node, site, { op: 'remove', accountId: row.id }, request.signal)
            return { row, sessionsEnded: (removed as SftpNodeRemoved).sessionsEnded }
          } catch (error) {
            // A node that has no SFTP server or no longer the site holds no login for it either.
            if (!(error instanceof Problem) || error.status >= 500) throw error
            return { row, sessionsEnded: 0 }
          }
        },
        async handler({ trx, prepared: { row, sessionsEnded } }) {
          // Gone meanwhile (a delete at the same time): nothing left to record.
          if (!(await findAccount(trx, row.siteId, row.id))) return unchanged(toSftpUser(row))
          await deleteAccount(trx, row.id)
          const account = toSftpUser(row)
          return recorded(account, { details: { ...accountDetails(account), sessionsEnded } })
        },
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/sites/:id/sftp-users/:sftpUserId/password',
      operationId: 'rotateSftpPassword',
      summary: 'Give an SFTP account a new password',
      description:
        'Generates a new password (shown once in the answer) and gives the node its hash; the old password stops working and the account’s live sessions end at once. An account that had keys only gains a password. Refused for a site that is not running.',
      scope: siteScopes.files,
      idempotent: false,
      showsSecret: true,
      params: AccountParams,
      responses: {
        200: { description: 'The account and its new password.', schema: SftpUserWithNewPassword },
      },
      problems: [...runningSiteProblems, problems.sftp_unavailable, problems.sftp_node_unreachable],
      change: {
        action: 'sftp_user.rotate_password',
        event: 'sftp_user.updated',
        details: accountDetails,
        payload: withoutPassword,
      },
      async prepare({ db, params, view, request }) {
        const site = orNotFound(await sites.find(db, view, params.id))
        const current = orNotFound(await findAccount(db, site.id, params.sftpUserId))
        requireRunningSite(site)
        const node = await nodeOf(site)
        const password = generatePassword()
        const passwordHash = await Bun.password.hash(password, 'argon2id')
        const changed: SftpUsersTable = { ...current, passwordEnabled: 1, updatedAt: nowIso() }
        const put = { op: 'put', account: nodeAccount(changed, passwordHash) } as const
        const where = (await ask(node, site, put, request.signal)) as SftpNodeInfo
        return { password, row: reachable(changed, where) }
      },
      async handler({ trx, prepared: { password, row } }) {
        orNotFound(await findAccount(trx, row.siteId, row.id))
        await updateAccount(trx, row.id, {
          passwordEnabled: 1,
          port: row.port,
          hostKeyFingerprints: row.hostKeyFingerprints,
          updatedAt: row.updatedAt,
        })
        return { ...toSftpUser(row), password }
      },
    }),
  ]
}
