// The brands plugin's public contract: the brand schema and its scopes.

import { type Static, t } from '../../core/index.ts'

/** A brand: a white-label reseller whose staff see only its customers. */
export const Brand = t.Object(
  {
    id: t.String({ description: 'Identifier, `brd_…`.' }),
    name: t.String({ description: 'Display name, unique.' }),
    isDefault: t.Boolean({
      description: 'The brand customers get when none is named (one per installation).',
    }),
    createdAt: t.String({ format: 'date-time' }),
    updatedAt: t.String({ format: 'date-time' }),
  },
  { $id: 'Brand' },
)
export type Brand = Static<typeof Brand>

/** Scope names the plugin declares (all staff scopes). */
export const brandScopes = {
  read: 'brand:read',
  create: 'brand:create',
  manage: 'brand:manage',
} as const
