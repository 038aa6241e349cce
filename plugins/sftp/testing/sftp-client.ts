// OpenSSH's own `sftp` client for the SFTP tests: batch runs with a password (through SSH_ASKPASS) or a key, a
// known_hosts file of the test's own, and a session kept open to see it cut.

import { chmodSync, existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** How a run logs in. */
export type Credential = { readonly password: string } | { readonly key: string }

/** What a finished run printed. */
export interface SftpRun {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** A client for the server at `127.0.0.1:port`, keeping its files (askpass, known_hosts, batches) in `dir`. */
export function sftpClient(dir: string, port: number) {
  const askpass = join(dir, 'askpass.sh')
  const knownHosts = join(dir, 'known_hosts')
  if (!existsSync(askpass)) {
    writeFileSync(askpass, '#!/bin/sh\nprintf "%s\\n" "$SFTP_TEST_PASSWORD"\n')
    chmodSync(askpass, 0o700)
  }

  function argv(username: string, credential: Credential): string[] {
    const common = [
      'sftp',
      '-P',
      String(port),
      '-o',
      'StrictHostKeyChecking=accept-new',
      '-o',
      `UserKnownHostsFile=${knownHosts}`,
      '-o',
      'ConnectTimeout=10',
      '-o',
      'NumberOfPasswordPrompts=1',
    ]
    const auth =
      'password' in credential
        ? // -b turns BatchMode on, which would not ask for the password: given first, ours wins.
          ['-o', 'BatchMode=no', '-o', 'PreferredAuthentications=password', '-o', 'PubkeyAuthentication=no']
        : ['-o', 'PreferredAuthentications=publickey', '-o', 'IdentitiesOnly=yes', '-i', credential.key]
    return [...common, ...auth, '-b', '-', `${username}@127.0.0.1`]
  }

  function environment(credential: Credential): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dir,
      SSH_ASKPASS: askpass,
      SSH_ASKPASS_REQUIRE: 'force',
      DISPLAY: 'none',
      SFTP_TEST_PASSWORD: 'password' in credential ? credential.password : '',
    }
  }

  return {
    knownHosts,
    /** Runs the batch `commands` (a failing one ends the run unless it starts with `-`). */
    async run(username: string, credential: Credential, commands: readonly string[]): Promise<SftpRun> {
      const child = Bun.spawn(argv(username, credential), {
        stdin: new Blob([`${commands.join('\n')}\n`]),
        stdout: 'pipe',
        stderr: 'pipe',
        env: environment(credential),
        cwd: dir,
        timeout: 60_000,
      })
      const [stdout, stderr, code] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ])
      return { code, stdout, stderr }
    },
    /** A session left open: commands are written as needed; `output` grows as the client prints. */
    open(username: string, credential: Credential) {
      const child = Bun.spawn(argv(username, credential), {
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
        env: environment(credential),
        cwd: dir,
        timeout: 120_000,
      })
      const state = { output: '' }
      const collect = async (stream: ReadableStream<Uint8Array>) => {
        for await (const chunk of stream) state.output += new TextDecoder().decode(chunk)
      }
      const done = Promise.all([collect(child.stdout), collect(child.stderr)])
      return {
        state,
        send(line: string) {
          child.stdin.write(`${line}\n`)
          child.stdin.flush()
        },
        exited: child.exited.then(async (code) => {
          await done
          return code
        }),
        kill: () => child.kill('SIGKILL'),
      }
    },
  }
}
