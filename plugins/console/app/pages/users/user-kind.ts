// How the users pages name a user's kind.

import type { Schemas } from '../../api/client.ts'

/** "Platform staff", "Brand staff" or "Customer user" (a plain user, on customers' teams). */
export function userKind(user: Pick<Schemas['User'], 'staffRole'>): string {
  if (user.staffRole === 'platform') return 'Platform staff'
  if (user.staffRole === 'brand') return 'Brand staff'
  return 'Customer user'
}
