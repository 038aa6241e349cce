// How token lists show a token's scopes and expiry (the caller's own tokens, and staff's view of a user's).

import { daysUntil, formatTime } from '../../components/format.ts'
import { StatusBadge } from '../../components/status-badge.tsx'

/** The scopes, `*` said in words. */
export function TokenScopes({ scopes }: { scopes: readonly string[] }) {
  return (
    <ul className="token-scopes">
      {scopes.map((scope) => (
        <li key={scope}>
          <code>{scope}</code>
          {scope === '*' ? ' (everything its creator may do)' : ''}
        </li>
      ))}
    </ul>
  )
}

/** The expiry time, with a word when it has passed or is near. */
export function TokenExpiry({ expiresAt }: { expiresAt: string }) {
  const days = daysUntil(expiresAt)
  const expired = Date.parse(expiresAt) <= Date.now()
  return (
    <>
      {formatTime(expiresAt)}{' '}
      {expired ? <StatusBadge status="expired" /> : days < 14 ? <StatusBadge status="expiring" /> : null}
    </>
  )
}
