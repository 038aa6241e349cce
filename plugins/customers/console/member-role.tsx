// A member's role as a select that saves on change (`PATCH /customers/{id}/members/{userId}`). A refusal (the
// last owner, an admin touching owners) is said beside it and the select shows the role the member still has.

import { useMutation } from '@tanstack/react-query'
import { useId } from 'react'
import { InlineError, isTeamRole, roleOptions, type TeamRole, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Member = Schemas['Member']

export function MemberRole({ customerId, member }: { customerId: string; member: Member }) {
  const id = useId()
  const change = useMutation({
    mutationFn: (role: TeamRole) =>
      unwrap(
        api.PATCH('/api/v1/customers/{id}/members/{userId}', {
          params: { path: { id: customerId, userId: member.userId } },
          body: { role },
        }),
      ),
  })
  const shown = change.isPending ? change.variables : member.role
  const problem = change.error
  return (
    <div className="member-role">
      <label className="visually-hidden" htmlFor={id}>
        Role of {member.email}
      </label>
      <select
        id={id}
        value={shown}
        disabled={change.isPending}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-error` : undefined}
        onChange={(event) => {
          if (isTeamRole(event.target.value)) change.mutate(event.target.value)
        }}
      >
        {roleOptions.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {problem ? (
        <InlineError error={problem} id={`${id}-error`} />
      ) : change.isSuccess ? (
        <span className="muted" role="status">
          Saved
        </span>
      ) : null}
    </div>
  )
}
