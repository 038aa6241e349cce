// How a host that cannot start says why: every problem on its own line on stderr, no stack trace, exit code 2.

import { PluginResolutionError } from '../core/host.ts'
import { SettingsError } from './settings.ts'

/** The lines that explain `error` to an operator. */
export function startupProblems(error: unknown): string[] {
  if (error instanceof SettingsError) return [...error.problems]
  if (error instanceof PluginResolutionError) return [`plugins: ${error.message}`]
  if (error instanceof Error) return [error.message]
  return [String(error)]
}

/** Prints why the host could not start and exits 2. */
export function reportStartupFailure(error: unknown): never {
  for (const line of startupProblems(error)) console.error(`plinth: ${line}`)
  process.exit(2)
}
