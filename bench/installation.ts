// The installation the bench measures: the standard plugins, or what PLINTH_CONFIG makes of them, as `npm start`.

import { type Installation, installationPlugins, settingsFromEnv } from '../hosts/index.ts'

/** The plugins (and overrides) of the installation in `dataDir`, read from the environment like `npm start`. */
export function benchInstallation(dataDir: string): Promise<Installation> {
  return installationPlugins(settingsFromEnv({ ...process.env, DATA_DIR: dataDir }))
}
