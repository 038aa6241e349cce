// Revoking a token from a token list: the caller's own (`DELETE /api-tokens/{id}`) or, for staff on a user's page,
// that user's (`DELETE /users/{id}/api-tokens/{tokenId}`). It stops working at once, so it asks twice.

import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmAction } from '../../components/confirm-action.tsx'

/** Revokes `token`: one of `userId`'s when given, else one of the caller's own. */
export function RevokeToken({ token, userId }: { token: Schemas['ApiToken']; userId?: string }) {
  const revoke = () =>
    unwrap(
      userId === undefined
        ? api.DELETE('/api/v1/api-tokens/{id}', { params: { path: { id: token.id } } })
        : api.DELETE('/api/v1/users/{id}/api-tokens/{tokenId}', {
            params: { path: { id: userId, tokenId: token.id } },
          }),
    )
  return (
    <ConfirmAction run={revoke} confirmLabel={`Confirm: revoke ${token.name}`}>
      Revoke<span className="visually-hidden"> {token.name}</span>
    </ConfirmAction>
  )
}
