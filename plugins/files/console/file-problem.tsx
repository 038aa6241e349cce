// A refusal of a site's files, with what it means for the user when the reason is the site or its node rather than
// the request.

import { ExplainedProblem, explanationFrom } from '../../console/kit.ts'

/** What to tell the user beyond the API's words (which say what happened), for refusals about the site's state. */
const explanations: Readonly<Record<string, string>> = {
  node_unavailable:
    'The server this site lives on cannot be reached right now. Nothing was changed; try again in a few minutes.',
  site_not_ready:
    'The site is not running on its server (it is being set up, has failed, or is being deleted): its files wait until it is.',
  file_operation_failed:
    'The site’s server could not carry this out. Part of it may have been done; reload the folder to see.',
  disk_quota_exceeded: 'Delete files, or ask for a larger disk quota.',
  upload_too_large: 'Send it over SFTP, or ask your provider.',
}

/** The explanation for `error`, if it is one of the refusals about the site's state. */
export function explanationOf(error: unknown): string | null {
  return explanationFrom(error, explanations)
}

/** A failed read or action on a site's files. */
export function FileProblem({ error }: { error: unknown }) {
  return <ExplainedProblem error={error} explanations={explanations} />
}
