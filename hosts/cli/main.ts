// `npm run panel -- <command>`: the CLI, on the same DATA_DIR as the server (safe while it runs), with the same
// plugins (PLINTH_CONFIG), so it knows the same scopes.

import { UserError } from '../../core/host.ts'
import { installationPlugins } from '../plinth-config.ts'
import { settingsFromEnv } from '../settings.ts'
import { openStandardPanel } from '../standard-panel.ts'
import { reportStartupFailure } from '../startup-failure.ts'
import { CliError, runCommand, usage } from './commands.ts'

const argv = process.argv.slice(2)
if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) {
  console.log(usage)
  process.exit(argv.length === 0 ? 2 : 0)
}
const panel = await (async () => {
  try {
    const settings = settingsFromEnv()
    return await openStandardPanel(settings, await installationPlugins(settings))
  } catch (error) {
    return reportStartupFailure(error)
  }
})()
let exitCode = 0
try {
  for (const line of await runCommand(panel, argv)) console.log(line)
} catch (error) {
  if (error instanceof CliError || error instanceof UserError) {
    console.error(error.message)
    exitCode = error instanceof CliError ? error.exitCode : 1
  } else {
    console.error(error)
    exitCode = 1
  }
} finally {
  await panel.close()
}
process.exit(exitCode)
