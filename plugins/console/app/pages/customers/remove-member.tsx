// Removing a member from a team (`DELETE /customers/{id}/members/{userId}`), confirmed by a second press; their
// tokens lose this customer at once. A refusal (the last owner) is said beside the button.

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ApiProblem } from '../../api/problem.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'

export function RemoveMember({ customerId, member }: { customerId: string; member: Schemas['Member'] }) {
  const queries = useQueryClient()
  const remove = useMutation({
    mutationFn: () =>
      unwrap(
        api.DELETE('/api/v1/customers/{id}/members/{userId}', {
          params: { path: { id: customerId, userId: member.userId } },
        }),
      ),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['customers', customerId, 'members'] }),
  })
  return (
    <div>
      <ConfirmButton
        confirmLabel={`Confirm: remove ${member.email}`}
        onConfirm={() => remove.mutate()}
        disabled={remove.isPending}
      >
        Remove<span className="visually-hidden"> {member.email}</span>
      </ConfirmButton>
      {remove.error ? (
        <p className="field-error" role="alert">
          {remove.error instanceof ApiProblem
            ? (remove.error.detail ?? remove.error.title)
            : String(remove.error)}
        </p>
      ) : null}
    </div>
  )
}
