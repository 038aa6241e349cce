// The shell plugin's node module: the `shell` service, commands and interactive shells in a sandbox of the site. One
// per node: it keeps the commands and shells it runs.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { shellNodeService } from './service.ts'

export default defineNodeModule({
  name: 'shell',
  source: import.meta.url,
  packages: ['bubblewrap'],
  create: () => ({ services: [shellNodeService()] }),
})
