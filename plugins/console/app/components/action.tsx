// A button's call to the API outside a form (activate, suspend, delete …): its pending state and its refusal,
// which the page shows beside the button rather than swallowing it.

import { useMutation } from '@tanstack/react-query'
import { ErrorNotice } from './states.tsx'

/** Runs `action`; `error` holds the last refusal until the next attempt. */
export function useAction<A, R>(
  action: (argument: A) => Promise<R>,
  onSuccess?: (result: R, argument: A) => void,
) {
  return useMutation({ mutationFn: action, onSuccess: (result, argument) => onSuccess?.(result, argument) })
}

/** The last refusal of an action, if any. */
export function ActionError({ action }: { action: { error: unknown } }) {
  return action.error ? <ErrorNotice error={action.error} /> : null
}
