// SFTP accounts of a site: create (password shown once, or public keys), list, read, rotate the password, delete.
// The node is told first and the panel records what the node accepted, so a revoked account is never left working
// on the node: a node that cannot be reached changes nothing (503).

import { randomBytes } from 'node:crypto'
import {
  defineFormat,
  defineRoute,
  FieldErrors,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  type TenantView,
  t,
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

const SiteParams = { id: 'site' } as const
const AccountParams = { id: 'site', sftpUserId: 'sftpu' } as const

/** A random account name: 8 lower-case letters and digits. */
function randomName(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789'
  return [...randomBytes(8)].map((byte) => alphabet[byte % alphabet.length]).join('')
}

/** What the audit entries and events say of an account: never its password or hash. */
const auditDetails = (row: SftpUsersTable) => ({
  siteId: row.siteId,
  username: row.username,
  passwordEnabled: row.passwordEnabled === 1,
  keyFingerprints: keysOf(row).map((key) => key.fingerprint),
  readOnly: row.readOnly === 1,
  expiresAt: row.expiresAt,
})

/** The routes under `/sites/{id}/sftp-users`. */
export function sftpUserRoutes(context: PluginContext): RouteDefinition[] {
  const { db } = context
  const sites = context.use(siteDirectory)
  const nodes = context.use(nodeDirectory)

  const siteIn = async (view: TenantView, id: string) => orNotFound(await sites.find(db, view, id))

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

  return [
    defineRoute({
      method: 'POST',
      path: '/sites/:id/sftp-users',
      operationId: 'createSftpUser',
      summary: 'Create an SFTP account for a site',
      description:
        'Creates an account on the site’s node that logs in over SFTP (only SFTP: no shell, commands or forwarding) to the site’s files as the site’s Unix user, confined to the site: the client sees the site’s home as `/` (`htdocs/`, `logs/` read-only, `tmp/`). With a password (generated, shown once in this answer; default when no keys are given) and/or SSH public keys, optionally read-only and with an expiry. The answer says where to connect (`host`, `port`) and the host keys’ fingerprints to check on first connecting. The node is told before the panel records the account: a node that does not answer changes nothing (503). Refused for a site that is not running (409 `site_suspended`, `site_not_ready`).',
      scope: siteScopes.files,
      idempotent: true,
      showsSecret: true,
      params: SiteParams,
      body: CreateSftpUserBody,
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
      async handler({ params, body, view, audit, emit, request }) {
        const site = await siteIn(view, params.id)
        requireRunningSite(site)
        const keys = checkedKeys(body.publicKeys ?? [])
        const withPassword = body.password ?? keys.length === 0
        if (!withPassword && keys.length === 0) throw new Problem(problems.sftp_credentials_required)
        const expiresAt = expiryOf(body.expiresAt)
        const username = `${site.handle}.${body.name ?? randomName()}`
        if (await usernameTaken(db, username)) throw fieldProblem(problems.sftp_username_taken, 'body.name')
        const node = await nodeOf(site)
        // Hashed here, outside any transaction (it takes a moment): the node keeps the hash, nobody the password.
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
        const where = (await ask(
          node,
          site,
          { op: 'put', account: nodeAccount(draft, passwordHash) },
          request.signal,
        )) as SftpNodeInfo
        const row: SftpUsersTable = {
          ...draft,
          port: where.port,
          hostKeyFingerprints: JSON.stringify(where.hostKeyFingerprints),
        }
        try {
          await context.transaction(async (trx) => {
            requireRunningSite(orNotFound(await sites.find(trx, view, site.id)))
            if (await usernameTaken(trx, username))
              throw fieldProblem(problems.sftp_username_taken, 'body.name')
            await insertAccount(trx, row)
            await audit(trx, {
              action: 'sftp_user.create',
              subject: { type: 'sftp_user', id: row.id },
              customerId: row.customerId,
              details: auditDetails(row),
            })
            await emit(trx, { kind: 'sftp_user.created', customerId: row.customerId, data: toSftpUser(row) })
          })
        } catch (error) {
          // Not recorded (the site changed meanwhile): the node forgets it too.
          await ask(node, site, { op: 'remove', accountId: row.id }, AbortSignal.timeout(30_000)).catch(
            () => {},
          )
          throw error
        }
        return Reply.created(
          { ...toSftpUser(row), ...(password === null ? {} : { password }) },
          `/sites/${site.id}/sftp-users/${row.id}`,
        )
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/sftp-users',
      operationId: 'listSftpUsers',
      summary: 'List a site’s SFTP accounts',
      description: 'The site’s SFTP accounts, oldest first; passwords are never shown again.',
      scope: siteScopes.files,
      params: SiteParams,
      list: { item: SftpUser, toItem: toSftpUser },
      async handler({ params, view }) {
        const site = await siteIn(view, params.id)
        return siteAccounts(db, site.id)
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/sites/:id/sftp-users/:sftpUserId',
      operationId: 'getSftpUser',
      summary: 'Read an SFTP account',
      scope: siteScopes.files,
      params: AccountParams,
      responses: { 200: SftpUser },
      async handler({ params, view }) {
        const site = await siteIn(view, params.id)
        return toSftpUser(orNotFound(await findAccount(db, site.id, params.sftpUserId)))
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
      async handler({ params, view, audit, emit, request }) {
        const site = await siteIn(view, params.id)
        const current = orNotFound(await findAccount(db, site.id, params.sftpUserId))
        requireRunningSite(site)
        const node = await nodeOf(site)
        const password = generatePassword()
        const passwordHash = await Bun.password.hash(password, 'argon2id')
        const changed: SftpUsersTable = { ...current, passwordEnabled: 1, updatedAt: nowIso() }
        const where = (await ask(
          node,
          site,
          { op: 'put', account: nodeAccount(changed, passwordHash) },
          request.signal,
        )) as SftpNodeInfo
        const row = {
          ...changed,
          port: where.port,
          hostKeyFingerprints: JSON.stringify(where.hostKeyFingerprints),
        }
        await context.transaction(async (trx) => {
          orNotFound(await findAccount(trx, site.id, row.id))
          await updateAccount(trx, row.id, {
            passwordEnabled: 1,
            port: row.port,
            hostKeyFingerprints: row.hostKeyFingerprints,
            updatedAt: row.updatedAt,
          })
          await audit(trx, {
            action: 'sftp_user.rotate_password',
            subject: { type: 'sftp_user', id: row.id },
            customerId: row.customerId,
            details: auditDetails(row),
          })
          await emit(trx, { kind: 'sftp_user.updated', customerId: row.customerId, data: toSftpUser(row) })
        })
        return { ...toSftpUser(row), password }
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/sites/:id/sftp-users/:sftpUserId',
      operationId: 'deleteSftpUser',
      summary: 'Delete an SFTP account',
      description:
        'Removes the account from the node, which ends its live sessions at once, then from the panel. Works on a suspended site too (revoking access is always allowed). A node that does not answer changes nothing (503).',
      scope: siteScopes.files,
      params: AccountParams,
      responses: { 204: { description: 'Deleted; its sessions are ended.' } },
      problems: [problems.sftp_node_unreachable],
      async handler({ params, view, audit, emit, request }) {
        const site = await siteIn(view, params.id)
        const row = orNotFound(await findAccount(db, site.id, params.sftpUserId))
        const node = site.nodeId === null ? null : await nodes.find(site.nodeId)
        let sessionsEnded = 0
        if (node) {
          try {
            const removed = (await ask(
              node,
              site,
              { op: 'remove', accountId: row.id },
              request.signal,
            )) as SftpNodeRemoved
            sessionsEnded = removed.sessionsEnded
          } catch (error) {
            // A node that has no SFTP server or no longer the site holds no login for it either.
            if (!(error instanceof Problem) || error.status >= 500) throw error
          }
        }
        await context.transaction(async (trx) => {
          if (!(await findAccount(trx, site.id, row.id))) return
          await deleteAccount(trx, row.id)
          await audit(trx, {
            action: 'sftp_user.delete',
            subject: { type: 'sftp_user', id: row.id },
            customerId: row.customerId,
            details: { ...auditDetails(row), sessionsEnded },
          })
          await emit(trx, { kind: 'sftp_user.deleted', customerId: row.customerId, data: toSftpUser(row) })
        })
        return Reply.noContent()
      },
    }),
  ]
}
