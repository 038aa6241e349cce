// A backup's status as a coloured word, in the console's badge colours (the word carries the meaning): `completed`
// is good only when verified, which it always is, and `failed` says its code beside it.

const tones = { completed: 'good', running: 'busy', failed: 'bad' } as const

export function BackupStatus({ status }: { status: keyof typeof tones }) {
  return <span className={`badge badge-${tones[status] ?? 'plain'}`}>{status}</span>
}
