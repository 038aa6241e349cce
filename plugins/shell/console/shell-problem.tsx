// A refusal of a site's shell or command, with what it means for the user when the reason is the site or its node
// rather than the request.

import { ExplainedProblem, explanationFrom } from '../../console/kit.ts'

/** What to tell the user beyond the API's words (which say what happened), for refusals about the site's state. */
const explanations: Readonly<Record<string, string>> = {
  node_unavailable:
    'The server this site lives on cannot be reached right now. Nothing was changed; try again in a few minutes.',
  site_not_ready:
    'The site is not running on its server (it is being set up, has failed, or is being deleted): its shell waits until it is.',
  shell_unavailable: 'This site’s server hosts files only: it offers no shell and runs no commands.',
}

/** The explanation for `error`, if it is one of the refusals about the site's state. */
export function explanationOf(error: unknown): string | null {
  return explanationFrom(error, explanations)
}

/** A failed shell or command of a site. */
export function ShellProblem({ error }: { error: unknown }) {
  return <ExplainedProblem error={error} explanations={explanations} />
}
