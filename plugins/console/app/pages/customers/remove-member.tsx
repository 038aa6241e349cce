// Removing a member from a team (`DELETE /customers/{id}/members/{userId}`), confirmed by a second press; their
// tokens lose this customer at once. A refusal (the last owner) is said beside the button.

import { useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmAction } from '../../components/confirm-action.tsx'

export function RemoveMember({ customerId, member }: { customerId: string; member: Schemas['Member'] }) {
  const queries = useQueryClient()
  return (
    <ConfirmAction
      run={() =>
        unwrap(
          api.DELETE('/api/v1/customers/{id}/members/{userId}', {
            params: { path: { id: customerId, userId: member.userId } },
          }),
        )
      }
      onDone={() => queries.invalidateQueries({ queryKey: ['customers', customerId, 'members'] })}
      confirmLabel={`Confirm: remove ${member.email}`}
    >
      Remove<span className="visually-hidden"> {member.email}</span>
    </ConfirmAction>
  )
}
