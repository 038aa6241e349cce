// The php plugin's node module: the `php` and `static` site applications (a document root with a default index).

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { documentRootApplication } from './application.ts'

export default defineNodeModule({
  name: 'php',
  source: import.meta.url,
  create: () => ({ applications: [documentRootApplication('php'), documentRootApplication('static')] }),
})
