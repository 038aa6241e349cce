// Who learns, from a refused site, about the provider's nodes: platform staff only, who see them on `GET /nodes`.
// A customer's caller (a team member, a customer-limited token, brand staff) is told the code and that no server
// takes the site now, never a node's name, what it lacks or why it cannot serve (its port taken by another program,
// nginx missing, the command that installs it): those are the provider's, and the customer can do nothing about them.

import type { Caller } from '../../core/index.ts'
import { nodeScopes } from '../nodes/contract.ts'

/** Whether `caller` may learn about nodes: platform staff, reading every node (not a token limited to a customer). */
export const seesNodes = (caller: Caller): boolean =>
  caller.scopes.has(nodeScopes.read) && caller.viewFor(nodeScopes.read).kind === 'all'
