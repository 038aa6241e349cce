// A status as a coloured word (the word itself carries the meaning; colour only repeats it).

const tones: Readonly<Record<string, string>> = {
  active: 'good',
  succeeded: 'good',
  connected: 'good',
  ready: 'good',
  issued: 'good',
  provisioning: 'busy',
  running: 'busy',
  queued: 'busy',
  pending: 'busy',
  deleting: 'busy',
  draining: 'warn',
  suspended: 'warn',
  cancelled: 'warn',
  expiring: 'warn',
  failed: 'bad',
  disabled: 'bad',
  disconnected: 'bad',
  'not ready': 'bad',
  expired: 'bad',
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${tones[status] ?? 'plain'}`}>{status}</span>
}
