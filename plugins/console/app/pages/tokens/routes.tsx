// The tokens area's pages: the caller's API tokens and creating one.

import type { RouteDefinition } from '../../router.tsx'
import './tokens.css'
import { NewToken } from './new-token.tsx'
import { TokenList } from './token-list.tsx'

export const tokenRoutes: RouteDefinition[] = [
  { path: '/api-tokens', render: () => <TokenList /> },
  { path: '/api-tokens/new', render: () => <NewToken /> },
]
