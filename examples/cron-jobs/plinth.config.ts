// The standard installation with scheduled tasks: `PLINTH_CONFIG=examples/cron-jobs/plinth.config.ts npm start`.

import { definePlinthConfig } from '../../hosts/index.ts'
import { cronJobsPlugin } from './index.ts'

export default definePlinthConfig((standard) => [...standard, cronJobsPlugin()])
