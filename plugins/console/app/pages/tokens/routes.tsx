// The tokens area's pages: the caller's API tokens and creating one.

import type { ConsoleRoute } from '../../console-pages.ts'
import './tokens.css'
import { NewToken } from './new-token.tsx'
import { TokenList } from './token-list.tsx'

export const tokenRoutes: readonly ConsoleRoute[] = [
  { path: '/api-tokens', render: () => <TokenList /> },
  { path: '/api-tokens/new', render: () => <NewToken /> },
]
