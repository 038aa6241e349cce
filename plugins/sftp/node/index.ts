// The SFTP plugin's node module: the `sftp` service (a site's accounts, kept on the node) and its SSH server. The
// panel's local node is given the plugin's options; an agent reads SFTP_PORT (default 2222, `off` for none) and
// SFTP_LISTEN (default 0.0.0.0) from its environment.

import { defineNodeModule } from '../../nodes/node/contract.ts'
import { type SftpServiceOptions, sftpNodeService } from './service.ts'

/** SFTP_PORT and SFTP_LISTEN as an agent has them; throws naming a bad one. */
function fromEnvironment(env: Readonly<Record<string, string | undefined>>): SftpServiceOptions {
  const text = env.SFTP_PORT
  if (text === 'off') return { port: null }
  const port = text === undefined || text === '' ? 2222 : Number(text)
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error('SFTP_PORT must be a port, 1 to 65535, or off')
  return { port, listen: env.SFTP_LISTEN || '0.0.0.0' }
}

export default defineNodeModule<SftpServiceOptions>({
  name: 'sftp',
  source: import.meta.url,
  packages: ['openssh-sftp-server', 'bubblewrap'],
  create: (host, options) => ({ services: [sftpNodeService(options ?? fromEnvironment(host.env))] }),
})
