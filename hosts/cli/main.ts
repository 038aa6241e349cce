// `npm run panel -- <command>`: the CLI, on the same DATA_DIR as the server (safe while it runs), with the same
// plugins (PLINTH_CONFIG), so it knows the same scopes. `help` lists the commands; `<command> --help` explains one.

import { type Panel, UserError } from '../../core/host.ts'
import { installationPlugins } from '../plinth-config.ts'
import { type StandardSettings, settingsFromEnv } from '../settings.ts'
import { openStandardPanel } from '../standard-panel.ts'
import { startupProblems } from '../startup-failure.ts'
import { StartupFailure } from './cli-error.ts'
import {
  type CliContext,
  CliError,
  type Command,
  commands,
  findCommand,
  helpOf,
  optionsOf,
  standalone,
  unknownCommand,
  usage,
} from './commands.ts'

/** What `help <words>` prints, and with which exit code. */
function helpFor(words: readonly string[]): { text: string; exitCode: number } {
  if (words.length === 0) return { text: usage, exitCode: 0 }
  const found = findCommand(words)
  if (found && found.rest.length === 0) return { text: helpOf(found.command), exitCode: 0 }
  const near = commands.filter((command) => command.words[0] === words[0])
  if (words.length === 1 && near.length > 0) return { text: near.map(helpOf).join('\n'), exitCode: 0 }
  return { text: unknownCommand(words).message, exitCode: 2 }
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 0) {
    console.error(usage)
    return 2
  }
  const asksHelp = argv.includes('--help') || argv.includes('-h')
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h' || (asksHelp && !findCommand(argv))) {
    const { text, exitCode } = helpFor(
      argv[0] === 'help' ? argv.slice(1) : argv.filter((word) => !word.startsWith('-')),
    )
    if (exitCode === 0) console.log(text)
    else console.error(text)
    return exitCode
  }
  const found = findCommand(argv)
  if (!found) throw unknownCommand(argv)
  if (asksHelp) {
    console.log(helpOf(found.command))
    return 0
  }
  const values = optionsOf(found.command, found.rest)
  return run(found.command, values)
}

async function run(command: Command, values: ReturnType<typeof optionsOf>): Promise<number> {
  let settings: StandardSettings | undefined
  let panel: Panel | undefined
  const settingsOf = (): StandardSettings => {
    try {
      settings ??= settingsFromEnv(process.env)
      return settings
    } catch (error) {
      throw new StartupFailure(error)
    }
  }
  const context: CliContext = {
    env: process.env,
    settings: settingsOf,
    async panel() {
      if (panel) return panel
      const opened = settingsOf()
      try {
        panel = await openStandardPanel(opened, await installationPlugins(opened), { existingOnly: true })
      } catch (error) {
        throw new StartupFailure(error)
      }
      return panel
    },
    warn: (line) => console.error(line),
    stdin: process.stdin,
  }
  // Every command but these reads the settings first: a malformed one stops it before anything is done.
  if (command.words[0] !== 'version' && command.words[0] !== 'config') settingsOf()
  try {
    if (!standalone.has(command)) await context.panel()
    for (const line of await command.run(context, values)) console.log(line)
    return 0
  } finally {
    await panel?.close()
  }
}

let exitCode: number
try {
  exitCode = await main(process.argv.slice(2))
} catch (error) {
  if (error instanceof CliError || error instanceof UserError) {
    console.error(error.message)
    exitCode = error instanceof CliError ? error.exitCode : 1
  } else if (error instanceof StartupFailure) {
    // The installation refused to open (settings, PLINTH_CONFIG, plugins, store): as `npm start` says it.
    for (const line of startupProblems(error.reason)) console.error(`plinth: ${line}`)
    exitCode = 2
  } else {
    console.error(error)
    exitCode = 1
  }
}
process.exit(exitCode)
