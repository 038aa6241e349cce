// `npm run panel -- <command>`: the CLI, on the same DATA_DIR as the server (safe while it runs).

import { UserError } from '../../core/index.ts'
import { openStandardPanel, settingsFromEnv } from '../standard-panel.ts'
import { CliError, runCommand, usage } from './commands.ts'

const argv = process.argv.slice(2)
if (argv.length === 0 || argv[0] === 'help' || argv.includes('--help')) {
  console.log(usage)
  process.exit(argv.length === 0 ? 2 : 0)
}
const panel = await openStandardPanel(settingsFromEnv())
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
