// Revoking one of the caller's own tokens (`DELETE /api-tokens/{id}`): it stops working at once, so it asks twice.

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ApiProblem } from '../../api/problem.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'

export function RevokeToken({ token }: { token: Schemas['ApiToken'] }) {
  const queries = useQueryClient()
  const revoke = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/v1/api-tokens/{id}', { params: { path: { id: token.id } } })),
    onSuccess: () => queries.invalidateQueries({ queryKey: ['tokens'] }),
  })
  return (
    <div>
      <ConfirmButton
        confirmLabel={`Confirm: revoke ${token.name}`}
        onConfirm={() => revoke.mutate()}
        disabled={revoke.isPending}
      >
        Revoke<span className="visually-hidden"> {token.name}</span>
      </ConfirmButton>
      {revoke.error ? (
        <p className="field-error" role="alert">
          {revoke.error instanceof ApiProblem
            ? (revoke.error.detail ?? revoke.error.title)
            : String(revoke.error)}
        </p>
      ) : null}
    </div>
  )
}
