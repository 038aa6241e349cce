// Sending a file into a site: small files in one `PUT …/files/content` with the raw body, large ones through the
// resumable uploads API in parts, so a broken connection loses one part rather than the whole file.

import { ApiProblem, rawRequest, unwrap } from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { filesApi } from './paths.ts'

type SiteFile = Schemas['SiteFile']
type FileUpload = Schemas['FileUpload']

/** Files above this go through the resumable uploads API. */
export const resumableFromBytes = 8 * 1024 * 1024
/** The bytes each request of a resumable upload sends. */
const partBytes = 8 * 1024 * 1024
/** How often a part is sent again after the connection broke, before the upload is given up. */
const retriesPerPart = 3

/** How an upload goes. */
export interface UploadOptions {
  /** Replace a file already at the path; otherwise only a new file is made (`If-None-Match: *`). */
  readonly replace: boolean
  /** Bytes the node has so far. */
  readonly onProgress: (sent: number) => void
  /** Stops the upload (a resumable one is aborted on the node). */
  readonly signal: AbortSignal
}

/** Uploads `file` to `path` of the site; resolves with the file made, throws the API's refusal. */
export async function uploadFile(
  siteId: string,
  path: string,
  file: File,
  options: UploadOptions,
): Promise<SiteFile> {
  if (file.size <= resumableFromBytes) return uploadWhole(siteId, path, file, options)
  return uploadInParts(siteId, path, file, options)
}

async function uploadWhole(siteId: string, path: string, file: File, options: UploadOptions) {
  const headers: Record<string, string> = { 'Content-Type': 'application/octet-stream' }
  if (!options.replace) headers['If-None-Match'] = '*'
  const response = await rawRequest(filesApi(siteId, `/content?path=${encodeURIComponent(path)}`), {
    method: 'PUT',
    headers,
    body: file,
    signal: options.signal,
  })
  options.onProgress(file.size)
  return (await response.json()) as SiteFile
}

async function uploadInParts(siteId: string, path: string, file: File, options: UploadOptions) {
  const upload = await unwrap(
    api.POST('/api/v1/sites/{id}/files/uploads', {
      params: { path: { id: siteId } },
      body: { path, size: file.size, ...(options.replace ? {} : { ifNoneMatch: '*' as const }) },
    }),
  )
  const where = filesApi(siteId, `/uploads/${encodeURIComponent(upload.id)}`)
  let received = upload.received
  let retries = 0
  try {
    while (true) {
      options.signal.throwIfAborted()
      const part = file.slice(received, Math.min(file.size, received + partBytes))
      try {
        const response = await rawRequest(
          where,
          {
            method: 'PUT',
            headers: { 'Content-Type': 'application/octet-stream', 'Upload-Offset': String(received) },
            body: part,
            signal: options.signal,
          },
          // Only the last part makes the file: the folder is read again after it, not after every part.
          { readAgain: received + part.size >= file.size },
        )
        const state = (await response.json()) as FileUpload
        received = state.received
        retries = 0
        options.onProgress(received)
        if (state.file) return state.file
      } catch (error) {
        // A refusal is final, except an offset the node disagrees with: ask it where it is and go on from there.
        // A broken connection (not a refusal) is tried again from what the node kept.
        const offsetMoved = error instanceof ApiProblem && error.code === 'upload_offset_mismatch'
        const broken = !(error instanceof ApiProblem) && !options.signal.aborted
        if ((!offsetMoved && !broken) || retries++ >= retriesPerPart) throw error
        if (broken) await new Promise((resolve) => setTimeout(resolve, 1000 * retries))
        const state = await unwrap(
          api.GET('/api/v1/sites/{id}/files/uploads/{uploadId}', {
            params: { path: { id: siteId, uploadId: upload.id } },
          }),
        )
        received = state.received
        options.onProgress(received)
      }
    }
  } catch (error) {
    // Given up or refused: the node's partial copy is removed now rather than lingering for a day.
    void api
      .DELETE('/api/v1/sites/{id}/files/uploads/{uploadId}', {
        params: { path: { id: siteId, uploadId: upload.id } },
      })
      .catch(() => {})
    throw error
  }
}
