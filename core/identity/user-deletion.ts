// Deleting a user: their sessions, API tokens and team memberships go with them in one transaction, with its
// `user.delete` entry; what they did stays in the audit log under their id. Refused while the installation or a
// team would be left without the person who runs it: the last platform staff member, a team's last owner.

import {
  type Dependent,
  defineDependents,
  detachDependents,
  refuseWhileBlocked,
} from '../plugin/dependents.ts'
import type { ExtensionRegistry } from '../plugin/extension-point.ts'
import { Problem } from '../problem/problem.ts'
import { defineProblems } from '../problem/problem-code.ts'
import type { Db, Trx } from '../store/store.ts'
import type { TenancyTables } from '../tenancy/tenancy-tables.ts'
import { type AuditWriter, brandOfUser } from './account-controls.ts'
import type { IdentityTables, UsersTable } from './identity-tables.ts'
import { toUser, type User } from './users.ts'

const identity = (db: Db) => db.withTables<IdentityTables & TenancyTables>()

/** A user as what hangs on users sees them when one is to be deleted. */
export interface UserRef {
  readonly id: string
  readonly email: string
}

/**
 * What keeps a user, and what goes with them: plugins whose records need a user count them in `blocking` (while
 * any counts more than 0, `DELETE /users/{id}` is refused with 409 `user_in_use` naming them), and remove what is
 * theirs of the user in `detach`, in the deleting transaction. The kernel counts the teams they alone own.
 * @example context.extensionPoint(userDependents).add({ name: 'reviews', detach: (trx, user) => dropReviewerOf(trx, user.id) })
 */
export const userDependents = defineDependents<UserRef>({
  id: 'identity.userDependents',
  owner: 'identity',
  description: 'What keeps a user from being deleted, and what goes with them.',
})

/** Refusals of a user's deletion. */
export const userDeletionProblems = defineProblems({
  cannot_delete_self: {
    status: 409,
    detail: 'You cannot delete your own account.',
    description:
      'Staff delete other users, never themselves (so an installation cannot lose its last staff member by a slip); ask another staff member.',
  },
  last_platform_staff: {
    status: 409,
    detail: 'This is the last enabled platform staff member; the installation would have no administrator.',
    description:
      'An installation keeps at least one enabled platform staff member (two who delete each other at once: one of them is refused). Make another platform staff member first.',
  },
  user_in_use: {
    status: 409,
    detail: 'The user is the only owner of customers’ teams, or other records need them.',
    description:
      'A customer’s team keeps at least one owner: `blockers` names the teams the user alone owns (`[{ "name": "owned-teams", "count": 2 }]`), and whatever else the installed plugins count; make another member owner of each first.',
  },
})

/** The kernel's own entry among a user's dependents: the teams they alone own. */
export const ownedTeams: Dependent<UserRef> = {
  name: 'owned-teams',
  blocking: (db, user) => teamsOwnedAlone(db, user.id),
}

/** How many customers' teams `userId` is the only owner of. */
async function teamsOwnedAlone(db: Db, userId: string): Promise<number> {
  const row = await identity(db)
    .selectFrom('memberships as own')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('own.user_id', '=', userId)
    .where('own.role', '=', 'owner')
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('memberships as other')
            .select('other.user_id')
            .whereRef('other.customer_id', '=', 'own.customer_id')
            .where('other.role', '=', 'owner')
            .where('other.user_id', '<>', userId),
        ),
      ),
    )
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/** How many enabled platform staff members there are besides `userId`. */
async function otherPlatformStaff(db: Db, userId: string): Promise<number> {
  const row = await identity(db)
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('staff_role', '=', 'platform')
    .where('disabled_at', 'is', null)
    .where('id', '<>', userId)
    .executeTakeFirstOrThrow()
  return Number(row.count)
}

/**
 * Deletes `user` in `trx` as `actorUserId` asks (null for the CLI), with its `user.delete` entry; refused (409) when
 * it is the actor, the last enabled platform staff member, or one of `dependents` blocks (the teams it alone owns).
 * Their sessions end and their tokens stop working from the next request, in every panel process (a write to
 * `users` ends kept callers).
 */
export async function deleteUserIn(
  trx: Trx,
  user: UsersTable,
  actorUserId: string | null,
  dependents: ExtensionRegistry<Dependent<UserRef>>,
  audit: AuditWriter,
): Promise<User> {
  if (user.id === actorUserId) throw new Problem(userDeletionProblems.cannot_delete_self)
  if (user.staff_role === 'platform' && (await otherPlatformStaff(trx, user.id)) === 0)
    throw new Problem(userDeletionProblems.last_platform_staff)
  const ref = { id: user.id, email: user.email }
  await refuseWhileBlocked(
    dependents,
    trx,
    ref,
    userDeletionProblems.user_in_use,
    'The user',
    'make another member owner of each team they alone own, and remove the rest first',
  )
  await detachDependents(dependents, trx, ref)
  const deleted = toUser(user)
  // Read before the memberships go: the brand whose staff see the entry.
  const brandId = await brandOfUser(trx, deleted)
  await identity(trx).deleteFrom('sessions').where('user_id', '=', user.id).execute()
  await identity(trx).deleteFrom('api_tokens').where('user_id', '=', user.id).execute()
  await identity(trx).deleteFrom('memberships').where('user_id', '=', user.id).execute()
  await identity(trx).deleteFrom('users').where('id', '=', user.id).execute()
  await audit(trx, {
    action: 'user.delete',
    subject: { type: 'user', id: user.id },
    customerId: null,
    brandId,
    details: { email: user.email, staffRole: user.staff_role, brandId: user.brand_id },
  })
  return deleted
}
