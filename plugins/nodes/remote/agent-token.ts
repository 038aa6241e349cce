// Node agent tokens: `plinth_node_` + 40 base62 characters (~238 bits) + a checksum, in the kernel's token format.
// A node reports with its own token; only its SHA-256 is stored, and checks compare in constant time.

import { tokenFormat } from '../../../core/index.ts'

/** The agent tokens' format: a leaked one is recognisable by its prefix, and never mistaken for an API token. */
export const agentTokens = tokenFormat({ prefix: 'plinth_node_', randomLength: 40 })
