// Refusals of the nodes plugin.

import { defineProblems } from '../../core/index.ts'

export const nodesProblems = defineProblems({
  node_unavailable: {
    status: 503,
    detail: 'The site’s node cannot be reached now.',
    description:
      'Work inside a site (its files, commands, shell) goes to its node, whose agent is not connected (or did not answer in time): nothing was done. Try again once the node is back (`GET /nodes/{id}` says `agent.connected`).',
  },
  node_name_taken: {
    status: 409,
    detail: 'Another node already has this name.',
    description:
      'Node names are unique within the installation, whatever their case (`Web-1` and `web-1` clash).',
  },
  unknown_driver: {
    status: 422,
    detail: 'This installation has no node driver of that name.',
    description:
      'The `driver` is not one of the installed node drivers (`local` is built in); capabilities lists them under the `nodes` plugin.',
  },
  invalid_hostname: {
    status: 422,
    detail: 'The hostname is not a valid host name or IP address.',
    description:
      'The `hostname` must be a host name (`web-1.example.net`, `localhost`) or an IPv4 or IPv6 address, with no scheme, port or path.',
  },
  invalid_agent_token: {
    status: 401,
    detail: 'The agent token is not valid for this node.',
    description:
      'A node reported with a token that is malformed, belongs to another node, was replaced by a rotation, or names a node that does not exist (the answer never says which). The response has `WWW-Authenticate: Bearer`.',
  },
  node_disabled: {
    status: 403,
    detail: 'This node is disabled; it may not report.',
    description:
      'The agent token is right, but the node’s status is `disabled`: what it reports is not counted. Set it `active` or `draining` again to accept reports.',
  },
  unknown_site: {
    status: 422,
    detail: 'No site with this id runs on this node.',
    description:
      'A traffic sample names a site that does not exist or lives on another node. Nothing of the report was recorded.',
  },
  sample_too_old: {
    status: 422,
    detail: 'The sample is older than 7 days.',
    description:
      'Traffic samples are accepted for the last 7 days only (usage sums at most the last 7 days). Nothing of the report was recorded.',
  },
  sample_in_future: {
    status: 422,
    detail: 'The sample is dated in the future.',
    description:
      'A sample’s `at` is more than 5 minutes ahead of the panel’s clock; check the node’s clock. Nothing of the report was recorded.',
  },
  node_in_use: {
    status: 409,
    detail: 'Sites or databases still live on this node.',
    description:
      'A node is deleted only once nothing lives on it: its sites (in any state), the databases and database users on its own database server, and whatever else the installed plugins count. `blockers` names each with how many (`[{ "name": "sites", "count": 3 }]`); move or delete them first. Its own database server, once empty, goes with it.',
  },
  local_node: {
    status: 409,
    detail: 'The panel runs this node itself; it cannot be deleted.',
    description:
      'A node of the `local` driver is the panel’s own machine, run by the panel while it is installed with local serving (the default). Set it `disabled` to place no sites on it; an installation without the local driver (`nodes: { local: false }`) may delete it.',
  },
})
