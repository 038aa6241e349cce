// Replacing a node's agent token: the old one stops working at once, so it asks twice; the new one is shown once.

import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, type Schemas, unwrap } from '../../api/client.ts'
import { ConfirmButton } from '../../components/confirm-button.tsx'
import { ErrorNotice } from '../../components/states.tsx'
import { AgentToken } from './agent-command.tsx'

export function RotateAgentToken({ node }: { node: Schemas['Node'] }) {
  const queries = useQueryClient()
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/nodes/{id}/rotate-agent-token', { params: { path: { id: node.id } } })),
    onSuccess: ({ agentToken: _token, ...changed }) => {
      queries.setQueryData(['nodes', node.id], changed)
    },
  })
  return (
    <div>
      <p>
        A new token replaces the current one at once: the node’s agent stops being accepted until it is given
        the new token. Rotate when a node is rebuilt or its token may have leaked.
      </p>
      <ConfirmButton
        confirmLabel="Confirm: replace the agent token"
        onConfirm={() => rotate.mutate()}
        disabled={rotate.isPending}
      >
        Rotate agent token
      </ConfirmButton>
      {rotate.isError ? <ErrorNotice error={rotate.error} /> : null}
      {rotate.data ? <AgentToken driver={rotate.data.driver} token={rotate.data.agentToken} /> : null}
    </div>
  )
}
