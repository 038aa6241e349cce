// A button that downloads one file, showing the refusal when a link cannot be made.

import { useState } from 'react'
import { downloadFile } from './download.ts'
import { FileProblem } from './file-problem.tsx'

export function DownloadButton({
  siteId,
  path,
  label = 'Download',
}: {
  siteId: string
  path: string
  label?: string
}) {
  const [pending, setPending] = useState(false)
  const [failure, setFailure] = useState<unknown>(null)
  return (
    <div className="files-action">
      <button
        type="button"
        className="button secondary"
        disabled={pending}
        onClick={() => {
          setPending(true)
          setFailure(null)
          downloadFile(siteId, path)
            .catch(setFailure)
            .finally(() => setPending(false))
        }}
      >
        {pending ? 'Preparing…' : label}
      </button>
      {failure ? <FileProblem error={failure} /> : null}
    </div>
  )
}
