// The cron plugin's node module: the `cron` service, which runs sites' cron jobs as their users. One per node: it
// keeps the runs it carries out.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { cronNodeService } from './service.ts'

export default defineNodeModule({
  name: 'cron',
  source: import.meta.url,
  create: () => ({ services: [cronNodeService()] }),
})
