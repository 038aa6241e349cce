// Refusals of the databases plugin.

import { defineProblems, limitReached } from '../../core/index.ts'

/** The databases plugin's problem codes, catalogued in docs/problem-codes.md. */
export const databasesProblems = defineProblems({
  invalid_database_name: {
    status: 422,
    detail:
      'A database or user name is 1 to 32 lower-case letters, digits and single underscores, starting with a letter.',
    description:
      '`name` must match `^[a-z][a-z0-9]*(_[a-z0-9]+)*$` and be at most 32 characters; the server sees it behind the customer’s prefix (docs/databases.md).',
  },
  database_name_taken: {
    status: 409,
    detail: 'The customer already has a database of that name on that engine.',
    description: 'Real names are unique per server: choose another name, or delete the other database first.',
  },
  database_username_taken: {
    status: 409,
    detail: 'The customer already has a database user of that name on that server.',
    description:
      'Real user names are unique per server: choose another name, or delete the other user first.',
  },
  node_database_server: {
    status: 422,
    detail: 'The server is a node’s own: the node gives its address and holds its administrator.',
    description:
      'A node’s own database server (`nodeId`) is reached through its node: its host, port and administrator are the node’s and cannot be changed. Its name, status and capacity can.',
  },
  no_database_server: {
    status: 409,
    detail: 'No active database server of that engine has room for a new database.',
    description:
      'Staff add servers with `POST /database-servers`; `draining`, `disabled` and full servers receive no new databases.',
  },
  database_server_unreachable: {
    status: 409,
    detail: 'No database server with room can be reached from the site’s node.',
    description:
      'The servers with room are registered at a loopback address (`127.0.0.1`, `localhost`): they are on the panel’s own machine, and a site on another node cannot reach them. Register the server at an address the nodes reach (its `host`; docs/databases.md says what to open), or give the node a MariaDB of its own.',
  },
  unknown_database_server: {
    status: 422,
    detail: 'There is no database server with that id.',
    description:
      '`serverId` must name a database server of the installation (`GET /database-servers`, staff).',
  },
  database_server_name_taken: {
    status: 409,
    detail: 'Another database server already has this name.',
    description: 'Server names are unique in the installation.',
  },
  server_unreachable: {
    status: 422,
    detail: 'The panel could not connect to the database server.',
    description:
      'The connection test failed before logging in: wrong host or port, a firewall, or the server is down. Nothing was stored.',
  },
  server_login_failed: {
    status: 422,
    detail: 'The database server refused the administrator’s user name or password.',
    description: 'The connection test reached the server, which refused the credentials. Nothing was stored.',
  },
  server_privileges_missing: {
    status: 422,
    detail: 'The administrator cannot create databases and users on this server.',
    description:
      'MariaDB needs `CREATE`, `CREATE USER` and `GRANT OPTION` (with `RELOAD`-free grants); PostgreSQL a superuser or a role with `CREATEDB` and `CREATEROLE`. Nothing was stored.',
  },
  server_failed: {
    status: 502,
    detail: 'The database server failed to carry out the change.',
    description:
      'The server answered with an error the panel did not expect. Nothing was changed in the panel; try again, or ask staff to look at the server.',
  },
  database_limit_reached: limitReached('databases', 'databases'),
  unknown_database_site: {
    status: 422,
    detail: 'The customer has no such site.',
    description: '`siteId` must name a site of the same customer that is not being deleted.',
  },
  database_busy: {
    status: 409,
    detail: 'The database is being created or deleted; try again once its job has finished.',
    description:
      'A `provisioning` database is deleted once its creation finished; a `deleting` one is on its way out.',
  },
  database_user_busy: {
    status: 409,
    detail: 'The database user is being deleted.',
    description: 'A `deleting` user cannot change.',
  },
  weak_password: {
    status: 422,
    detail: 'The password is too weak.',
    description:
      'A given password is 16 to 128 printable ASCII characters with at least three of: lower-case letters, upper-case letters, digits, other characters. Leave it out and the panel generates one.',
  },
  invalid_allowed_host: {
    status: 422,
    detail: 'An allowed host is not an IP address or host name.',
    description:
      'Each of `allowedHosts` is an IPv4 or IPv6 address or a host name; wildcards (`%`, `_`) are refused, so a login is never opened to every host.',
  },
  unknown_database: {
    status: 422,
    detail: 'A grant names a database the customer does not have.',
    description:
      'Each `grants[].databaseId` names a database of the same customer that is not being deleted.',
  },
  database_on_other_server: {
    status: 422,
    detail: 'A grant names a database on another server than the user’s.',
    description: 'A login lives on one server; it can only be granted databases on that server.',
  },
  duplicate_grant: {
    status: 422,
    detail: 'A database is granted twice.',
    description: 'Each database appears at most once in `grants`.',
  },
  database_server_in_use: {
    status: 409,
    detail: 'Databases or database users are still on this server.',
    description:
      'A database server is deleted only once it holds nothing: its databases and database users, in any state (deleting ones until they are dropped). `blockers` names each with how many (`[{ "name": "databases", "count": 4 }]`); delete them first, or set the server `disabled` to place nothing new on it.',
  },
  database_server_of_node: {
    status: 409,
    detail: 'The server is a node’s own; it goes with its node.',
    description:
      'A node’s own database server (`nodeId`) is registered by the node as it reports, and would come back: delete the node instead (its server goes with it once empty), or set the server `disabled` to place nothing on it.',
  },
})
