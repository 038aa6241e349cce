// Refusals of the sites plugin.

import { defineProblems } from '../../core/index.ts'

/** The sites plugin's problem codes, catalogued in docs/problem-codes.md. */
export const sitesProblems = defineProblems({
  unknown_site_type: {
    status: 422,
    detail: 'This installation has no site type of that name.',
    description: 'The `type` is not one of the installed site types; capabilities lists them.',
  },
  options_of_other_type: {
    status: 422,
    detail: 'The body has options for another type of site.',
    description:
      'A create body field a site type adds (`wordpress`) is read only for sites of that type; for any other `type` it is refused rather than dropped.',
  },
  invalid_domain: {
    status: 422,
    detail: 'The domain is not a valid fully qualified host name.',
    description:
      'The `domain` must be a host name of at least two labels (`example.com`), no scheme, port or path.',
  },
  domain_reserved: {
    status: 422,
    detail:
      'The domain is the panel’s or a brand’s sign-in host name, or a name under one, or under the staging domain: no site may take it.',
    description:
      'A site’s `domain` may not be a host name the panel is reached at (`PUBLIC_URL`), nor a brand’s sign-in host name (`hostnames`), nor any name under one (a site there could set cookies for it); nor a name under the installation’s `STAGING_DOMAIN`, which only staging copies take.',
  },
  domain_in_use: {
    status: 409,
    detail: 'Another site already uses this domain.',
    description: 'A domain is served by one site of the installation at a time.',
  },
  illegal_site_transition: {
    status: 409,
    detail: 'The site is not in a state that allows this.',
    description:
      'The operation would move the site between states the lifecycle does not allow (docs/sites.md), e.g. suspending a site that is still provisioning, or unsuspending one that is running. `currentStatus` names the current state, `requestedStatus` the one asked for.',
  },
  site_busy: {
    status: 409,
    detail: 'The site is being changed; try again once its job has finished.',
    description:
      'Changing the domain or limits of a site that is `provisioning` waits for its job to end (it becomes `active`, or `failed`, which takes changes); a site that is `deleting` takes none. `currentStatus` says which.',
  },
  limit_override_staff_only: {
    status: 403,
    detail: 'Only platform staff set a site’s CPU, memory or process limits.',
    description:
      'A site’s `limits.cpuPercent`, `memoryMB` and `processes` come from its plan, else its node’s defaults; platform staff alone may set them for one site (`PATCH /sites/{id}`). `fields` names the members refused; nothing was changed. (`diskMB` is the customer’s to share among its sites, within its plan.)',
  },
  resources_unreported: {
    status: 503,
    detail: 'The site’s node does not report what its sites use.',
    description:
      'The node answered, but not with the site’s resource use: its agent is older than the panel (update it), or it failed reading them (`detail` says why). `GET /sites/{id}/limits` still shows the limits.',
  },
  site_suspended: {
    status: 409,
    detail: 'The site is suspended: its files, accounts and programs wait until it is active again.',
    description:
      'A site’s files, SFTP accounts, commands, shell and WordPress operations are refused while it is `suspended` (by staff, or by a hold on its customer); unsuspending it gives them back.',
  },
  site_not_ready: {
    status: 409,
    detail: 'The site is not running on its node (it is provisioning, failed or being deleted).',
    description:
      'A site’s files, SFTP accounts, commands, shell and WordPress operations need the site `active` on its node: while it is `provisioning` wait for its job; a `failed` site needs its provisioning retried; a `deleting` one is going. `siteStatus` says which.',
  },
  site_held: {
    status: 409,
    detail: 'The site is suspended because its customer is on hold; lift the hold instead.',
    description:
      'Staff asked to unsuspend a site that a hold on its customer covers (billing suspended it, docs/billing.md). `holders` names who holds it: unsuspend the customer’s subscription (`POST /subscriptions/{id}/unsuspend`), and the site comes back unless staff suspended it too.',
  },
  disk_quota_required: {
    status: 422,
    detail: 'The customer’s disk is limited, so every site needs a disk quota.',
    description:
      'While the customer’s `diskMB` limit is set, a site must have `limits.diskMB`: null is refused, and a create without it is refused when the customer’s sites are unlimited (with a sites limit, the default is an even share of the free disk over the free site slots).',
  },
  site_limit_reached: {
    status: 422,
    detail: 'The customer already has as many sites as its limits allow.',
    description:
      'Creating the site would pass the customer’s `sites` limit (its plans, or the installation’s defaults). `limit` and `used` say where it stands; delete a site or move to a larger plan.',
  },
  domain_limit_reached: {
    status: 422,
    detail: 'The customer already serves as many domains as its limits allow.',
    description:
      'Adding the domain would pass the customer’s `domains` limit. `limit` and `used` say where it stands.',
  },
  disk_limit_reached: {
    status: 422,
    detail: 'The customer’s sites would be given more disk than its limits allow.',
    description:
      'The disk quotas of the customer’s sites (`limits.diskMB`) would add up to more than its `diskMB` limit, or the even share of what is left would be 0 MB. `limit`, `used` and `requested` are in MB. (A site without a quota while disk is limited is `disk_quota_required`.)',
  },
  site_type_unavailable: {
    status: 422,
    detail: 'No node that takes new sites can serve this type of site.',
    description:
      'Every active node lacks something sites of this type need (WordPress, PHP, a database server, ...): to platform staff the detail names it, with the command that installs it on the node (`npm run panel -- node setup` for the local node, `npm run agent -- setup` on a remote one); a customer’s caller learns nothing of the nodes. Capabilities list the types.',
  },
  site_node_lacks: {
    status: 409,
    detail: 'The site’s node lacks what sites of its type need.',
    description:
      'A failed site cannot be provisioned again while its node lacks something its type needs (WordPress, PHP, a database server, ...): `nodeId` is the node; to platform staff `lacks` names what, the detail the command that installs it on the node (`npm run panel -- node setup`, `npm run agent -- setup`).',
  },
  no_node_available: {
    status: 409,
    detail: 'No node accepts new sites.',
    description:
      'Every node is draining or disabled; platform staff must activate one (`PATCH /nodes/{id}`).',
  },
  no_node_ready: {
    status: 409,
    detail: 'No node that takes new sites can serve one now.',
    description:
      'Every active node is not ready: its agent never connected or stopped calling, it has not said what it runs yet, or it cannot serve (its sites’ port taken by another program, nginx missing, ...). To platform staff the detail names each node with why, and `nodes` lists them with their `notReady` reasons (as `GET /nodes` does); a customer’s caller (a team member, a customer-limited token) reads the code alone, never the provider’s nodes. Nothing was kept; the same request succeeds once a node is ready.',
  },
  node_not_ready: {
    status: 409,
    detail: 'The node cannot serve sites now.',
    description:
      'The node chosen for the site (`nodeId`), or the node of a failed site being retried, is not ready: `nodeId` is the node, and to platform staff `notReady` gives the reasons with their codes (`agent_never_connected`, `agent_disconnected`, `not_reported`, `port_taken`, `binary_missing`, `stack_failed`, `not_running`), as `GET /nodes/{id}` does; a customer retrying its site reads the code alone. Nothing was kept.',
  },
  unknown_node: {
    status: 422,
    detail: 'There is no such node.',
    description: 'The `nodeId` names no node.',
  },
  node_not_accepting: {
    status: 409,
    detail: 'The node takes no new sites.',
    description:
      'The node chosen for the site (`nodeId`) is `draining` or `disabled`; platform staff activate it with `PATCH /nodes/{id}`.',
  },
})
