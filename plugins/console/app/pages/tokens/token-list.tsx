// `/api-tokens`: the caller's own live API tokens (never their secrets), each revocable.

import { api, type Schemas } from '../../api/client.ts'
import { CursorTable } from '../../components/cursor-table.tsx'
import { useCustomerNames } from '../../components/customer-name.tsx'
import { formatTime } from '../../components/format.ts'
import { PageHeader } from '../../components/page.tsx'
import { Link } from '../../router.tsx'
import { RevokeToken } from './revoke-token.tsx'
import { TokenExpiry, TokenScopes } from './token-cells.tsx'

type ApiToken = Schemas['ApiToken']

export function TokenList() {
  const names = useCustomerNames()
  const customerName = (id: string | null) => (id === null ? 'Any' : names(id))
  return (
    <>
      <PageHeader
        title="API tokens"
        subtitle="Tokens let scripts use the API as you, within the scopes you give them; a token never does more than you may."
        actions={
          <Link className="button tokens-create" to="/api-tokens/new">
            Create API token
          </Link>
        }
      />
      <CursorTable<ApiToken>
        list={api.list('/api/v1/api-tokens')}
        caption="Your API tokens"
        rowKey={(token) => token.id}
        empty="You have no API tokens. Create one for a script or an integration."
        columns={[
          { header: 'Name', cell: (token) => token.name },
          { header: 'Scopes', cell: (token) => <TokenScopes scopes={token.scopes} /> },
          { header: 'Customer', cell: (token) => customerName(token.customerId) },
          { header: 'Expires', cell: (token) => <TokenExpiry expiresAt={token.expiresAt} /> },
          {
            header: 'Last used',
            cell: (token) => (token.lastUsedAt ? formatTime(token.lastUsedAt) : 'Never'),
          },
          { header: 'Created', cell: (token) => formatTime(token.createdAt) },
          { header: 'Actions', cell: (token) => <RevokeToken token={token} /> },
        ]}
      />
    </>
  )
}
