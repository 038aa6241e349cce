// The API's own OpenAPI document, as served to this console, read once a session for the kit's declared pages
// (operations.ts reads it).

import { useQuery } from '@tanstack/react-query'
import { apiUrl } from './client.ts'
import type { OpenApiDocument } from './operations.ts'

const read = async (url: string): Promise<unknown> => {
  const response = await fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
  if (!response.ok) throw new Error(`The API document could not be read (${response.status} at ${url})`)
  return response.json()
}

/** The document, where the API's index (`GET /api/v1`) says it is: the panel's options may move it. */
async function loadDocument(): Promise<OpenApiDocument> {
  const base = apiUrl('')
  const index = (await read(base)) as { api: string; docs: string }
  return (await read(`${base.slice(0, -index.api.length)}${index.docs}`)) as OpenApiDocument
}

/**
 * The document, read once a session (it changes only with the installation's plugins, which a restart changes), and
 * only when `needed`: a page that declares no form or delete button never reads it.
 */
export function useApiDocument(needed = true) {
  return useQuery({
    queryKey: ['api-document'],
    queryFn: loadDocument,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: needed,
  })
}
