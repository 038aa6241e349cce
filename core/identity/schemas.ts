// Schemas of the kernel's identity resources: users, tokens, the caller.

import { Type as t } from '@sinclair/typebox'
import { teamRoles } from '../auth/roles.ts'

export const TeamRole = t.Union(
  teamRoles.map((role) => t.Literal(role)),
  {
    $id: 'TeamRole',
    description:
      '`owner`: every customer scope and removing owners; `admin`, `developer`, `billing`: the customer scopes that name them (the `x-scopes` list and the scopes table say which).',
  },
)

export const User = t.Object(
  {
    id: t.String({ description: 'Identifier, `usr_…`.' }),
    email: t.String({ format: 'email' }),
    staffRole: t.Union([t.Literal('platform'), t.Literal('brand'), t.Null()], {
      description: '`platform` (the provider’s staff), `brand` (a brand’s staff) or null (customer members).',
    }),
    brandId: t.Union([t.String(), t.Null()], { description: 'The brand of brand staff.' }),
    createdAt: t.String({ format: 'date-time' }),
    disabledAt: t.Union([t.String({ format: 'date-time' }), t.Null()], {
      description:
        'When staff disabled the user (`POST /users/{id}/disable`): they cannot sign in and their tokens are refused with 401 `account_disabled` until enabled again. Null while enabled.',
    }),
  },
  { $id: 'User' },
)

export const ApiToken = t.Object(
  {
    id: t.String({ description: 'Identifier, `tok_…`.' }),
    name: t.String(),
    scopes: t.Array(t.String(), { description: 'As granted; `*` means every permission of the creator.' }),
    customerId: t.Union([t.String(), t.Null()], { description: 'The one customer the token is limited to.' }),
    expiresAt: t.String({ format: 'date-time' }),
    createdAt: t.String({ format: 'date-time' }),
    lastUsedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  },
  { $id: 'ApiToken' },
)

export const Session = t.Object(
  {
    id: t.String({
      description: 'The session’s id: the random first half of its cookie (not a secret on its own).',
    }),
    createdAt: t.String({ format: 'date-time', description: 'When it was created (signed in).' }),
    expiresAt: t.String({ format: 'date-time', description: 'When it ends unless used (it slides).' }),
    address: t.Union([t.String(), t.Null()], {
      description: 'The client address it was created from, when known (at most 64 characters).',
    }),
    userAgent: t.Union([t.String(), t.Null()], {
      description: 'The `User-Agent` it was created with, when sent (at most 256 characters).',
    }),
    current: t.Boolean({ description: 'Whether this is the session of the request.' }),
  },
  { $id: 'Session' },
)

export const CreatedApiToken = t.Object(
  {
    ...ApiToken.properties,
    token: t.String({ description: 'The token itself (`plinth_…`). Shown once: store it now.' }),
  },
  { $id: 'CreatedApiToken' },
)

export const Membership = t.Object(
  {
    customerId: t.String(),
    role: TeamRole,
    customerName: t.Union([t.String(), t.Null()], {
      description:
        'The customer’s display name (null without a customers plugin), so a team member sees it by name.',
    }),
    brandId: t.Union([t.String(), t.Null()], { description: 'The brand the customer belongs to.' }),
  },
  { $id: 'Membership' },
)

export const Me = t.Object(
  {
    user: User,
    kind: t.Union([t.Literal('platform'), t.Literal('brand'), t.Literal('member')], {
      description: 'Platform staff, brand staff, or a member of customers’ teams.',
    }),
    brandId: t.Union([t.String(), t.Null()]),
    memberships: t.Array(Membership),
    token: t.Union(
      [
        t.Object({
          id: t.String(),
          scopes: t.Array(t.String()),
          customerId: t.Union([t.String(), t.Null()]),
          expiresAt: t.String({ format: 'date-time' }),
        }),
        t.Null(),
      ],
      { description: 'The token in use, or null when signed in with a session.' },
    ),
    scopes: t.Array(t.String(), { description: 'Effective scopes: what this credential may do now.' }),
    session: t.Union(
      [
        t.Object({
          csrfToken: t.String({
            description:
              'The session’s CSRF token again (as login answered it): a page reloaded with the session cookie sends it as `X-CSRF-Token` on changes. Another origin cannot read it: this answer is same-origin only.',
          }),
        }),
        t.Null(),
      ],
      { description: 'The session in use, or null when called with a token.' },
    ),
  },
  { $id: 'Me' },
)

export const Login = t.Object(
  {
    csrfToken: t.String({
      description: 'Send as `X-CSRF-Token` with every state change made with the session cookie.',
    }),
    expiresAt: t.String({
      format: 'date-time',
      description: 'When the session ends unless used (it slides).',
    }),
    user: User,
  },
  { $id: 'Login' },
)
