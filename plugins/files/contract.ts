// The files plugin's public contract: the shape of a site's file as the API shows it.

export type { FileEntry } from './protocol.ts'
export { SiteFile } from './schemas.ts'
