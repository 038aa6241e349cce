// What other plugins may import of the logs plugin: its scope.

/** `log:read`: read and follow sites' logs; held by owners, admins and developers. */
export const logScopes = { read: 'log:read' } as const
