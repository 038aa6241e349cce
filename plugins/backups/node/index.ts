// The backups plugin's node module: the `backups` service, restic runs (backups, restores, forgets, archives) of the
// node's sites. One per node: it keeps the runs it carries out.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { backupsNodeService } from './service.ts'

export default defineNodeModule({
  name: 'backups',
  source: import.meta.url,
  packages: ['restic', 'rsync', 'openssh-client', 'mariadb-client', 'postgresql-client', 'gzip'],
  create: () => ({ services: [backupsNodeService()] }),
})
