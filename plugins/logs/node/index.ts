// The logs plugin's node module: the `logs` service, a site's access, error and PHP logs read as root.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { logsNodeService } from './service.ts'

export default defineNodeModule({
  name: 'logs',
  source: import.meta.url,
  create: () => ({ services: [logsNodeService()] }),
})
