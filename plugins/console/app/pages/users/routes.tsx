// The users area's pages (staff): the list of staff and users, creating one, and a user's page.

import type { ConsoleRoute } from '../../console-pages.ts'
import './users.css'
import { NewUser } from './new-user.tsx'
import { UserList } from './user-list.tsx'
import { UserPage } from './user-page.tsx'

export const userRoutes: readonly ConsoleRoute[] = [
  { path: '/users', render: () => <UserList /> },
  // Before `/users/:id`: the first matching route wins.
  { path: '/users/new', scope: 'user:manage', render: () => <NewUser /> },
  { path: '/users/:id', render: ({ id }) => <UserPage id={id ?? ''} /> },
]
