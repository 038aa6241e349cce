// The wordpress plugin's public contract: what the panel and the `wordpress` node service say to each other.

export type { WordPressRequest } from './protocol.ts'
export { wordpressService } from './protocol.ts'
