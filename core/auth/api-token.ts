// The API token format: `plinth_` + 30 base62 characters of randomness (~178 bits) + a 6-character CRC32 checksum.

import { tokenFormat } from './token-format.ts'

/** API tokens: recognisable by secret scanners from `plinth_`, hashed with SHA-256 for storage. */
export const apiTokens = tokenFormat({ prefix: 'plinth_', randomLength: 30 })
