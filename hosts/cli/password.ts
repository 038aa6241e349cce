// Passwords for the CLI: typed at a prompt that does not echo them, or piped on standard input. `--password` still
// works for old scripts, with a warning: a command line is visible to every user of the machine (ps, /proc) and
// npm prints it before running the command.

import { CliError } from './cli-error.ts'

/** The options of a command that takes a password. */
export const passwordOptions = {
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
} as const

/** How the options that take a password read in help. */
export const passwordHelp = `The password (12 to 256 characters) is asked for at a prompt that does not show it when run in a
terminal, or read from standard input with --password-stdin (one line; a final newline is dropped):
  printf '%s\\n' "$PASSWORD" | npm run --silent panel -- <command> ... --password-stdin
--password P still works but is visible to other users of the machine (ps, and npm echoes the command line).`

/** What the caller of {@link readPassword} can do: where it prints the prompt and warnings. */
export interface PasswordIo {
  warn(line: string): void
  readonly stdin: NodeJS.ReadStream
}

const warning =
  'warning: --password puts the password on the command line, where other users of this machine can read it (ps, /proc) and npm echoes it; use the prompt or --password-stdin instead'

/** The password the options give, the prompt reads (asked twice when `confirm`), or standard input holds. */
export async function readPassword(
  values: { password?: string | boolean; 'password-stdin'?: string | boolean },
  io: PasswordIo,
  options: { readonly confirm: boolean },
): Promise<string> {
  const given = values.password
  const fromStdin = values['password-stdin'] === true
  if (typeof given === 'string' && fromStdin)
    throw new CliError('Give --password or --password-stdin, not both', 2)
  if (typeof given === 'string') {
    io.warn(warning)
    return given
  }
  if (fromStdin) {
    const text = (await Bun.stdin.text()).replace(/\r?\n$/, '')
    if (text === '') throw new CliError('--password-stdin: standard input held no password', 2)
    if (text.includes('\n'))
      throw new CliError('--password-stdin: standard input holds more than one line', 2)
    return text
  }
  if (!io.stdin.isTTY)
    throw new CliError(
      'No password: run the command in a terminal to be asked for it, or pipe it with --password-stdin',
      2,
    )
  const first = await promptHidden(io, 'Password: ')
  if (!options.confirm) return first
  const second = await promptHidden(io, 'Repeat the password: ')
  if (first !== second) throw new CliError('The two passwords differ; nothing was done')
  return first
}

/** Reads one line from the terminal without echoing it; Ctrl-C cancels (exit 130). */
function promptHidden(io: PasswordIo, question: string): Promise<string> {
  const { stdin } = io
  // Echo goes off before the question shows: whoever types as soon as they see it is never echoed.
  stdin.setRawMode(true)
  stdin.setEncoding('utf8')
  stdin.resume()
  process.stderr.write(question)
  return new Promise((resolve, reject) => {
    let typed = ''
    const finish = () => {
      stdin.off('data', onData)
      stdin.setRawMode(false)
      stdin.pause()
      process.stderr.write('\n')
    }
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n' || character === '\u0004') {
          finish()
          resolve(typed)
          return
        }
        if (character === '\u0003') {
          finish()
          reject(new CliError('Cancelled', 130))
          return
        }
        if (character === '\u007f' || character === '\b') typed = typed.slice(0, -1)
        else if (character >= ' ') typed += character
      }
    }
    stdin.on('data', onData)
  })
}
