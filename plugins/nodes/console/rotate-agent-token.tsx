// Replacing a node's agent token: the old one stops working at once, so it asks twice; the new one is shown once.

import { useMutation } from '@tanstack/react-query'
import { ConfirmButton, ErrorNotice, unwrap } from '../../console/kit.ts'
import { AgentToken } from './agent-command.tsx'
import { api, type Schemas } from './api.ts'

export function RotateAgentToken({ node }: { node: Schemas['Node'] }) {
  const rotate = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/api/v1/nodes/{id}/rotate-agent-token', { params: { path: { id: node.id } } })),
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
