// A refusal on the command line: printed to stderr without a stack trace.

/** A refusal on the command line: exit code 2 for bad usage (a missing or unknown option), 1 for anything else. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = 'CliError'
  }
}

/** The installation could not be opened (settings, PLINTH_CONFIG, plugins, store): reported a line each, exit 2. */
export class StartupFailure extends Error {
  constructor(readonly reason: unknown) {
    super('The installation could not be opened')
    this.name = 'StartupFailure'
  }
}
