// Downloading a file of a site: the API makes a short-lived link (bound to the file as it is now) and the browser
// goes to it; the answer is an attachment, so the page stays where it is.

import { unwrap } from '../../console/kit.ts'
import { api } from './api.ts'

export async function downloadFile(siteId: string, path: string): Promise<void> {
  const link = await unwrap(
    api.POST('/api/v1/sites/{id}/files/download-links', { params: { path: { id: siteId } }, body: { path } }),
  )
  window.location.assign(link.url)
}
