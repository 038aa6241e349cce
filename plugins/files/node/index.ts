// The files plugin's node module: the `files` service, a site's files read and written as its Unix user.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { filesNodeService } from './files-service.ts'

export default defineNodeModule({
  name: 'files',
  source: import.meta.url,
  packages: ['zip', 'unzip'],
  create: () => ({ services: [filesNodeService()] }),
})
