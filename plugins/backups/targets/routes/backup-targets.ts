// Backup targets for platform staff: add one (after it passed the check), list, read, rename, make it the default,
// change its credentials (checked again), delete one nothing uses.

import {
  defineRoute,
  fieldProblem,
  newId,
  nowIso,
  orNotFound,
  type PluginContext,
  Problem,
  Reply,
  type RouteDefinition,
  t,
} from '../../../../core/index.ts'
import { BackupTarget, backupScopes, targetKinds } from '../../contract.ts'
import type { BackupTargetsTable } from '../../migrations.ts'
import { targetProblems } from '../problems.ts'
import { checkTarget, withScannedHostKeys } from '../target-check.ts'
import {
  CreateTargetBody,
  changesCredentials,
  targetOfBody,
  targetWithChanges,
  UpdateTargetBody,
} from '../target-input.ts'
import { openTarget, sealedColumns } from '../target-record.ts'
import {
  deleteTarget,
  findTargetRow,
  insertTarget,
  makeDefault,
  targetNameTaken,
  targetsQuery,
  targetUse,
  toTarget,
  updateTarget,
} from '../target-rows.ts'

const TargetParams = { id: 'bkt' } as const
const ListTargetsQuery = t.Object({
  kind: t.Optional(
    t.Union(
      targetKinds.map((kind) => t.Literal(kind)),
      { description: 'Only targets of this kind.' },
    ),
  ),
})
/** Refusals of the body and of the check, as both create and change may give them. */
const inputProblems = [
  targetProblems.backup_target_kind_fields,
  targetProblems.invalid_target_url,
  targetProblems.invalid_target_host,
  targetProblems.invalid_target_path,
  targetProblems.invalid_target_username,
  targetProblems.invalid_private_key,
  targetProblems.invalid_host_key,
  targetProblems.invalid_bucket_name,
  targetProblems.target_unreachable,
  targetProblems.target_login_failed,
  targetProblems.target_host_key_mismatch,
  targetProblems.target_refused,
  targetProblems.target_check_failed,
  targetProblems.backup_target_name_taken,
]

/** The backup target routes (platform staff). */
export function backupTargetRoutes(context: PluginContext): RouteDefinition[] {
  const { db, transaction, secrets } = context
  return [
    defineRoute({
      method: 'GET',
      path: '/backup-targets',
      operationId: 'listBackupTargets',
      summary: 'List backup targets',
      description:
        'Platform staff only. Every backup target, oldest first (the default local one among them).',
      scope: backupScopes.targetRead,
      staff: true,
      query: ListTargetsQuery,
      list: {
        item: BackupTarget,
        key: 'id',
        toItem: (row) => toTarget(row as BackupTargetsTable),
        filters: { kind: 'kind' },
      },
      handler: () => targetsQuery(db),
    }),
    defineRoute({
      method: 'GET',
      path: '/backup-targets/:id',
      operationId: 'getBackupTarget',
      summary: 'Read a backup target',
      scope: backupScopes.targetRead,
      staff: true,
      params: TargetParams,
      responses: { 200: { description: 'The target.', schema: BackupTarget } },
      async handler({ params }) {
        return toTarget(orNotFound(await findTargetRow(db, params.id)))
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/backup-targets',
      operationId: 'createBackupTarget',
      idempotent: true,
      summary: 'Add a backup target',
      description:
        'Platform staff only. The panel first makes (or opens) the repository `plinth-check` on the target with the credentials given, backs a few bytes up to it and removes that snapshot with the prune credentials (the same ones when none are separate); only then is the target kept, its secrets sealed and never returned. An SFTP target given no `hostKeys` has the keys its server shows pinned. 422 with the check’s code otherwise (`target_unreachable`, `target_login_failed`, `target_host_key_mismatch`, `target_refused`, `target_check_failed`), located at the field to fix, and nothing is stored.',
      scope: backupScopes.targetManage,
      staff: true,
      body: CreateTargetBody,
      responses: {
        201: {
          description: 'The new target.',
          schema: BackupTarget,
          headers: { Location: 'URL of the target.' },
        },
      },
      problems: inputProblems,
      change: {
        action: 'backup_target.create',
        details: ({ name, kind, default: isDefault, pushOnly, location }) => ({
          name,
          kind,
          default: isDefault,
          pushOnly,
          location,
        }),
      },
      // The target is reached and tried before the transaction: a slow or silent server holds nothing.
      async prepare({ db, body }) {
        if (await targetNameTaken(db, body.name))
          throw fieldProblem(targetProblems.backup_target_name_taken, 'body.name')
        const target = await withScannedHostKeys(await targetOfBody(body))
        await checkTarget(target)
        return target
      },
      async handler({ trx, body, prepared }) {
        const now = nowIso()
        const row: BackupTargetsTable = {
          id: newId('bkt'),
          name: body.name,
          ...sealedColumns(prepared, secrets),
          is_default: 0,
          created_at: now,
          updated_at: now,
        }
        if (await targetNameTaken(trx, row.name))
          throw fieldProblem(targetProblems.backup_target_name_taken, 'body.name')
        await insertTarget(trx, row)
        if (body.default === true) await makeDefault(trx, row.id, now)
        return toTarget(orNotFound(await findTargetRow(trx, row.id)))
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: '/backup-targets/:id',
      operationId: 'updateBackupTarget',
      summary: 'Change a backup target',
      description:
        'Platform staff only. Renames it, makes it the default (the former default stops being it in the same step), or changes its credentials, which are checked as when it was added before they are kept (422 with the check’s code otherwise, nothing changed). Where it is cannot change. Audited as `backup_target.update`, naming the credentials changed, never their values.',
      scope: backupScopes.targetManage,
      staff: true,
      params: TargetParams,
      body: UpdateTargetBody,
      responses: { 200: { description: 'The target.', schema: BackupTarget } },
      problems: inputProblems,
      async handler({ params, body, audit }) {
        const current = orNotFound(await findTargetRow(db, params.id))
        if (body.name !== undefined && (await targetNameTaken(db, body.name, params.id)))
          throw fieldProblem(targetProblems.backup_target_name_taken, 'body.name')
        let sealed: ReturnType<typeof sealedColumns> | null = null
        if (changesCredentials(body)) {
          const changed = await withScannedHostKeys(
            await targetWithChanges(openTarget(current, secrets), body),
          )
          await checkTarget(changed)
          sealed = sealedColumns(changed, secrets)
        }
        const row = await transaction(async (trx) => {
          orNotFound(await findTargetRow(trx, params.id))
          if (body.name !== undefined && (await targetNameTaken(trx, body.name, params.id)))
            throw fieldProblem(targetProblems.backup_target_name_taken, 'body.name')
          const now = nowIso()
          await updateTarget(trx, params.id, {
            ...(body.name !== undefined ? { name: body.name } : {}),
            ...(sealed ? { location_json: sealed.location_json } : {}),
            ...(sealed ? { push_secrets_sealed: sealed.push_secrets_sealed } : {}),
            ...(sealed ? { prune_secrets_sealed: sealed.prune_secrets_sealed } : {}),
            updated_at: now,
          })
          if (body.default === true) await makeDefault(trx, params.id, now)
          const updated = orNotFound(await findTargetRow(trx, params.id))
          await audit(trx, {
            action: 'backup_target.update',
            subject: { type: 'backup_target', id: params.id },
            customerId: null,
            // What changed; of credentials only their names.
            details: {
              ...(body.name !== undefined ? { name: body.name } : {}),
              ...(body.default === true ? { default: true } : {}),
              ...(sealed
                ? {
                    credentials: Object.keys(body).filter((field) => !['name', 'default'].includes(field)),
                    location: toTarget(updated).location,
                  }
                : {}),
            },
          })
          return updated
        })
        return toTarget(row)
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/backup-targets/:id',
      operationId: 'deleteBackupTarget',
      summary: 'Delete a backup target',
      description:
        'Platform staff only. Forgets a target nothing uses: refused with 409 `backup_target_in_use` (naming the `blockers`) while sites have repositories on it or their policies name it, and with 409 `backup_target_is_default` while it is the default. Nothing on the target itself is removed. Audited as `backup_target.delete`; the target then answers 404.',
      scope: backupScopes.targetManage,
      staff: true,
      params: TargetParams,
      responses: { 204: { description: 'The target is forgotten.' } },
      problems: [targetProblems.backup_target_in_use, targetProblems.backup_target_is_default],
      async handler({ params, audit }) {
        await transaction(async (trx) => {
          const found = orNotFound(await findTargetRow(trx, params.id))
          if (found.is_default === 1) throw new Problem(targetProblems.backup_target_is_default)
          const blockers = await targetUse(trx, found.id)
          if (blockers.length > 0)
            throw new Problem(targetProblems.backup_target_in_use, {
              detail: `The backup target ${found.name} is still in use by ${blockers.map(({ name, count }) => `${name} (${count})`).join(', ')}: move those sites to another target first.`,
              extensions: { blockers },
            })
          await deleteTarget(trx, found.id)
          await audit(trx, {
            action: 'backup_target.delete',
            subject: { type: 'backup_target', id: found.id },
            customerId: null,
            details: { name: found.name, kind: found.kind },
          })
        })
        return Reply.noContent()
      },
    }),
  ]
}
