// A certificate's end of validity: the date, and in words how long is left, marked as a warning under 30 days
// (when the panel calls it `expiring`) and as a fault once past. The words carry the meaning; colour repeats it.

import { daysUntil, formatTime } from '../../console/kit.ts'

/** Days before the end from which a certificate is shown as expiring (as the panel's `expiring` status). */
const warningDays = 30

export function ExpiryBadge({ notAfter }: { notAfter: string }) {
  const days = daysUntil(notAfter)
  if (new Date(notAfter).getTime() <= Date.now()) return <span className="badge badge-bad">Expired</span>
  const words = days === 0 ? 'Expires today' : days === 1 ? '1 day left' : `${days} days left`
  if (days < warningDays) return <span className="badge badge-warn">Warning: {words.toLowerCase()}</span>
  return <span className="muted">{words}</span>
}

export function Expiry({ notAfter }: { notAfter: string | null }) {
  if (!notAfter) return <>—</>
  return (
    <span className="expiry">
      {formatTime(notAfter)} <ExpiryBadge notAfter={notAfter} />
    </span>
  )
}

/** The common name of a distinguished name (`CN=R3, O=Let's Encrypt` → `R3`), else the whole name. */
export function commonName(dn: string | null): string {
  if (!dn) return '—'
  return /(?:^|[,/]\s*)CN=([^,/]+)/.exec(dn)?.[1]?.trim() ?? dn
}

/** What a certificate is called: its names, else its subject's common name, else the domains asked for. */
export function certificateLabel(certificate: {
  names: readonly string[]
  subject: string | null
  acme: { domains: readonly string[] } | null
}): string {
  if (certificate.names.length > 0) return certificate.names.join(', ')
  if (certificate.subject) return commonName(certificate.subject)
  return certificate.acme?.domains.join(', ') ?? 'Certificate'
}
