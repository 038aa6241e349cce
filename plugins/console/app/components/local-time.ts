// Times typed in `datetime-local` fields (the audit log's range, an SFTP account's expiry) are the reader's local
// time; the query string and the API take ISO 8601 in UTC. Both directions, once.

/** A `datetime-local` value as ISO 8601 UTC; what does not parse passes on as typed, for the API to refuse. */
export function isoOfLocal(value: string): string {
  const time = new Date(value)
  return Number.isNaN(time.getTime()) ? value : time.toISOString()
}

/** An ISO time as a `datetime-local` value in the reader's zone; empty when it does not parse. */
export function localOfIso(iso: string | undefined): string {
  if (!iso) return ''
  const time = new Date(iso)
  if (Number.isNaN(time.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${time.getFullYear()}-${pad(time.getMonth() + 1)}-${pad(time.getDate())}T${pad(time.getHours())}:${pad(time.getMinutes())}`
}
