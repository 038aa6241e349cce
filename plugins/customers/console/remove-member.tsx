// Removing a member from a team (`DELETE /customers/{id}/members/{userId}`), confirmed by a second press; their
// tokens lose this customer at once. A refusal (the last owner) is said beside the button.

import { ConfirmAction, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

export function RemoveMember({ customerId, member }: { customerId: string; member: Schemas['Member'] }) {
  return (
    <ConfirmAction
      run={() =>
        unwrap(
          api.DELETE('/api/v1/customers/{id}/members/{userId}', {
            params: { path: { id: customerId, userId: member.userId } },
          }),
        )
      }
      confirmLabel={`Confirm: remove ${member.email}`}
    >
      Remove<span className="visually-hidden"> {member.email}</span>
    </ConfirmAction>
  )
}
