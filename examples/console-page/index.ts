// The smallest plugin with a console page: the installation's support contact (`GET /support`, scope `support:read`),
// and a "Support" page in the console's navigation for those who hold the scope. The recipe of docs/console.md,
// written only against the public contracts (the kernel's, and the console's contract and kit).

import { definePlugin, defineRoute, t } from '../../core/index.ts'
import { addConsolePages } from '../../plugins/console/contract.ts'

/** How to reach the provider's support. */
export const SupportContact = t.Object(
  {
    email: t.String({ description: 'Where to write.' }),
    hours: t.String({ description: 'When someone answers.' }),
  },
  { $id: 'SupportContact' },
)

/** Options of {@link supportPlugin}: the contact it shows. */
export interface SupportOptions {
  readonly email: string
  /** Default `Weekdays, 9:00 to 17:00`. */
  readonly hours?: string
}

/** The support contact, for team members who run sites: `support:read`, held by owners, admins and developers. */
export const supportPlugin = (options: SupportOptions) =>
  definePlugin({
    name: 'support',
    version: '1.0.0',
    description: 'The provider’s support contact.',
    // Its console page, when the installation has a console; without one, the plugin mounts all the same.
    enhances: ['console'],
    scopes: [
      {
        name: 'support:read',
        description: 'Read the support contact',
        roles: ['owner', 'admin', 'developer'],
      },
    ],
    setup(context) {
      addConsolePages(context, import.meta.dir)
    },
    routes: () => [
      defineRoute({
        method: 'GET',
        path: '/support',
        operationId: 'getSupportContact',
        summary: 'How to reach support',
        scope: 'support:read',
        responses: { 200: SupportContact },
        handler: () => ({ email: options.email, hours: options.hours ?? 'Weekdays, 9:00 to 17:00' }),
      }),
    ],
  })
