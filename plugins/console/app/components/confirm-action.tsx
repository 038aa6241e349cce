// A destructive call from a row of a list (revoke a token, remove a member, sign a session out): asked twice, off
// while it runs, and a refusal (the last owner, a token already gone) said beside the button, never swallowed.

import { useMutation } from '@tanstack/react-query'
import type { ReactNode } from 'react'
import { ConfirmButton } from './confirm-button.tsx'
import { InlineError } from './states.tsx'

/**
 * Runs `run` on the second press (the lists its path touched are read again by the client); then `onDone`, whose
 * promise, if it answers one, keeps the button off until it settles. `children` names the action with its row, for
 * a screen reader's list of buttons.
 */
export function ConfirmAction({
  run,
  onDone,
  confirmLabel,
  children,
}: {
  run: () => Promise<unknown>
  onDone?: () => unknown
  confirmLabel: string
  children: ReactNode
}) {
  const action = useMutation({ mutationFn: run, onSuccess: onDone })
  return (
    <div>
      <ConfirmButton
        confirmLabel={confirmLabel}
        onConfirm={() => action.mutate()}
        disabled={action.isPending}
      >
        {children}
      </ConfirmButton>
      {action.error ? <InlineError error={action.error} /> : null}
    </div>
  )
}
