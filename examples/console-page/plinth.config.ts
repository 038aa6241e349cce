// The standard installation with the support page: `PLINTH_CONFIG=examples/console-page/plinth.config.ts npm start`.

import { definePlinthConfig } from '../../hosts/index.ts'
import { supportPlugin } from './index.ts'

export default definePlinthConfig((standard) => [
  ...standard,
  supportPlugin({ email: 'support@example.test' }),
])
