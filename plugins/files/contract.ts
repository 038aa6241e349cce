// The files plugin's public contract: the shape of a site's file as the API shows it, and the node service other
// hosts (the node agent) offer so remote nodes serve the same operations.

export { filesNodeService } from './node/files-service.ts'
export type { FileEntry } from './protocol.ts'
export { SiteFile } from './schemas.ts'
