// A user's e-mail by id, for the audit log's actors: staff who read users see everyone's, everyone
// sees their own; anyone else stays an id.

import { useQuery } from '@tanstack/react-query'
import { api } from '../../api/client.ts'
import { useSession } from '../../session.tsx'

export function useUserNames(): (id: string) => string {
  const session = useSession()
  const users = useQuery({ ...api.all('/api/v1/users'), enabled: session.staff && session.can('user:read') })
  const names = new Map<string, string>([[session.me.user.id, session.me.user.email]])
  for (const user of users.data ?? []) names.set(user.id, user.email)
  return (id) => names.get(id) ?? id
}
