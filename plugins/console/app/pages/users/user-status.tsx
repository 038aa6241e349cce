// Disabling and enabling a user (`POST /users/{id}/disable|enable`): disabling ends their sessions and suspends
// their tokens at once, so it asks twice; enabling does not. Staff cannot disable themselves (the API says so too).

import { useMutation } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { ErrorNotice } from '../../components/states.tsx'

export function UserStatus({ user }: { user: Schemas['User'] }) {
  const change = useMutation({
    mutationFn: (action: 'disable' | 'enable') =>
      unwrap(
        action === 'disable'
          ? api.POST('/api/v1/users/{id}/disable', { params: { path: { id: user.id } } })
          : api.POST('/api/v1/users/{id}/enable', { params: { path: { id: user.id } } }),
      ),
  })
  return (
    <div>
      {user.disabledAt ? (
        <>
          <p>This user cannot sign in, and their API tokens are refused until you enable them again.</p>
          <button
            type="button"
            className="button"
            disabled={change.isPending}
            onClick={() => change.mutate('enable')}
          >
            Enable user
          </button>
        </>
      ) : (
        <>
          <p>
            Disabling signs them out everywhere and suspends their API tokens at once; nothing is deleted, and
            enabling them restores the tokens.
          </p>
          <ConfirmButton
            confirmLabel="Confirm: disable user"
            onConfirm={() => change.mutate('disable')}
            disabled={change.isPending}
          >
            Disable user
          </ConfirmButton>
        </>
      )}
      {change.error ? <ErrorNotice error={change.error} /> : null}
    </div>
  )
}
