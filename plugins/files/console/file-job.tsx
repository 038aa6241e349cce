// A file job (archive, extract) followed live; what the page shows (the folder's listing) is read again when it
// ends, since it made files.

import { JobProgress } from '../../console/kit.ts'

export function FileJob({ jobId, what }: { jobId: string; what: string }) {
  return (
    <div>
      <p>{what}</p>
      <JobProgress jobId={jobId} />
    </div>
  )
}
