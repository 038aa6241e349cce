// The wordpress plugin's node module: WordPress as a site application (installed into sites whose spec asks for
// it) and the `wordpress` service (operations on an installed site, run as its user).

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { type WordPressApplicationOptions, wordpressApplication } from './application.ts'
import { wordpressNodeService } from './service.ts'

export default defineNodeModule<WordPressApplicationOptions>({
  name: 'wordpress',
  source: import.meta.url,
  packages: ['wordpress', 'php-mysql'],
  create: (_host, options) => ({
    applications: [wordpressApplication(options)],
    services: [wordpressNodeService()],
  }),
})
