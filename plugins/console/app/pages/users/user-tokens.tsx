// A user's live API tokens as staff see them (`GET /users/{id}/api-tokens`, expired ones included, never the
// secrets), each revocable for good (`DELETE /users/{id}/api-tokens/{tokenId}`).

import { api, type Schemas } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { formatTime } from '../../components/format.ts'
import { useSession } from '../../session.tsx'
import { RevokeToken } from '../tokens/revoke-token.tsx'
import { TokenExpiry, TokenScopes } from '../tokens/token-cells.tsx'

type ApiToken = Schemas['ApiToken']

export function UserTokens({ userId }: { userId: string }) {
  const session = useSession()
  const mayRevoke = session.can('user:manage')
  return (
    <CursorTable<ApiToken>
      list={api.list('/api/v1/users/{id}/api-tokens', {
        params: { path: { id: userId } },
      })}
      caption="The user’s API tokens"
      rowKey={(token) => token.id}
      empty="This user has no API tokens."
      columns={[
        { header: 'Name', cell: (token) => token.name },
        { header: 'Scopes', cell: (token) => <TokenScopes scopes={token.scopes} /> },
        { header: 'Customer', cell: (token) => token.customerId ?? 'Any' },
        { header: 'Expires', cell: (token) => <TokenExpiry expiresAt={token.expiresAt} /> },
        { header: 'Last used', cell: (token) => (token.lastUsedAt ? formatTime(token.lastUsedAt) : 'Never') },
        ...(mayRevoke
          ? [
              {
                header: 'Actions',
                cell: (token: ApiToken) => <RevokeToken userId={userId} token={token} />,
              },
            ]
          : []),
      ]}
    />
  )
}
