// The customers plugin: customers as owners of everything else, and their teams.

import { definePlugin, tenantDirectoryService } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import {
  Customer,
  customerDependents,
  customerDirectory,
  customerScopes,
  customerSuspensions,
  DeletedCustomer,
  suspensionHandlers,
} from './contract.ts'
import { customerDeletionJobs, customerDeletionRoutes } from './deletion.ts'
import { customersMigrations } from './migrations.ts'
import { customersProblems } from './problems.ts'
import { findCustomer } from './repository.ts'
import { customerRoutes } from './routes/customers.ts'
import { memberRoutes } from './routes/members.ts'
import { createCustomerSuspensions } from './suspensions.ts'

/** Options of {@link customersPlugin}; none yet, the object lets them grow without breaking callers. */
export type CustomersOptions = Record<string, never>

/**
 * Customers and teams: create, list, read, update customers; manage members; the kernel's tenant directory; holds
 * that suspend all of a customer's resources (`customers.suspensions`, filled by `customers.suspensionHandlers`).
 */
export const customersPlugin = (_options: CustomersOptions = {}) =>
  definePlugin({
    name: 'customers',
    version: '0.1.0',
    description: 'Customers: the owners of sites, databases and subscriptions.',
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    scopes: [
      {
        name: customerScopes.read,
        description: 'Read customer details',
        roles: ['owner', 'admin', 'billing'],
      },
      { name: customerScopes.manage, description: 'Change customer details' },
      { name: customerScopes.membersManage, description: "Manage a customer's team" },
      { name: customerScopes.create, description: 'Create customers', staff: true },
      {
        name: customerScopes.delete,
        description: 'Delete customers and everything they own',
        staff: true,
      },
    ],
    requires: ['brands'],
    events: [
      { kind: 'customer.created', description: 'A customer was created.', payload: Customer },
      {
        kind: 'customer.updated',
        description: 'A customer’s name or contact e-mail changed, or its deletion started (`deleting`).',
        payload: Customer,
      },
      {
        kind: 'customer.deleted',
        description:
          'A customer and everything it owned were removed (`DELETE /customers/{id}`); its audit entries stay.',
        payload: DeletedCustomer,
      },
    ],
    problems: customersProblems,
    usage: [{ name: 'customers', description: 'Customers.' }],
    migrations: customersMigrations,
    extensionPoints: [suspensionHandlers, customerDependents],
    setup(context) {
      addConsolePages(context, import.meta.dir)
      // The handlers are read when a hold is taken, by then every plugin has added its own.
      context.provide(
        customerSuspensions,
        createCustomerSuspensions(context.extensionPoint(suspensionHandlers)),
      )
      context.provide(customerDirectory, { find: findCustomer })
      context.provide(tenantDirectoryService, {
        findCustomer: (id) => findCustomer(context.db, { kind: 'all' }, id),
      })
    },
    jobs: (context) => customerDeletionJobs(context),
    routes: (context) => [
      ...customerRoutes(context),
      ...customerDeletionRoutes(context),
      ...memberRoutes(context),
    ],
  })
