// A file job (archive, extract) followed live; the folder listings refresh when it ends, since it made files.

import { useQueryClient } from '@tanstack/react-query'
import { JobProgress } from '../../components/job-progress.tsx'

export function FileJob({ siteId, jobId, what }: { siteId: string; jobId: string; what: string }) {
  const queries = useQueryClient()
  return (
    <div>
      <p>{what}</p>
      <JobProgress
        jobId={jobId}
        onFinished={() => void queries.invalidateQueries({ queryKey: ['files', siteId] })}
      />
    </div>
  )
}
