// The wordpress plugin's public contract: the `wordpress` node service (which the node agent offers its sites, as
// the local node does) and what the panel and the service say to each other.

export { wordpressNodeService } from './node/service.ts'
export type { WordPressRequest } from './protocol.ts'
export { wordpressService } from './protocol.ts'
