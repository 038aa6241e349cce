// The node agent's settings, from the environment: where the panel is, the node's agent token, where the agent
// keeps its sites, and the ports its nginx listens on. A bad setting is named, with what it must be. (Node modules
// read their own settings from the same environment: SFTP_PORT for the SFTP server.)

import { resolve } from 'node:path'

/**
 * The shape of an agent token, `plinth_node_` and 46 base62 characters: enough to catch a token pasted wrong at
 * start-up. The panel checks the token itself (its checksum and hash) at the first poll.
 */
const agentTokenShape = /^plinth_node_[0-9A-Za-z]{46}$/

/** What `npm run agent` runs with (docs/nodes.md). */
export interface AgentSettings {
  /** `PANEL_URL`: the panel's base URL, `https://panel.example.net` (http only for loopback or `AGENT_INSECURE=1`). */
  readonly panelUrl: string
  /** `AGENT_TOKEN`: the node's agent token, shown once when the node was added. */
  readonly token: string
  /** `AGENT_DATA_DIR`, default `./agent-data`: nginx and PHP-FPM configuration, the sites' homes. */
  readonly dataDir: string
  /** `SITES_HTTP_PORT`, default 80. */
  readonly httpPort: number
  /** `SITES_HTTPS_PORT`, default 443. */
  readonly httpsPort: number
  /** `AGENT_REPORT_SECONDS`, default 60: how often traffic is reported. */
  readonly reportSeconds: number
}

/** A setting the agent cannot run with. */
export class AgentSettingsError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'))
    this.name = 'AgentSettingsError'
  }
}

/** The settings in `env`; throws {@link AgentSettingsError} listing every bad one. */
export function agentSettingsFromEnv(env: Record<string, string | undefined> = process.env): AgentSettings {
  const problems: string[] = []
  const port = (name: string, fallback: number) => {
    const text = env[name]
    if (text === undefined || text === '') return fallback
    const value = Number(text)
    if (!Number.isInteger(value) || value < 1 || value > 65535)
      problems.push(`${name} must be a port, 1 to 65535`)
    return value
  }
  const panelUrl = (env.PANEL_URL ?? '').replace(/\/+$/, '')
  let url: URL | null = null
  try {
    url = new URL(panelUrl)
  } catch {
    problems.push('PANEL_URL must be the panel’s URL, e.g. https://panel.example.net')
  }
  if (url) {
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (loopback || env.AGENT_INSECURE === '1')))
      problems.push(
        'PANEL_URL must be https:// (plain http only to a loopback panel, or with AGENT_INSECURE=1)',
      )
  }
  const token = env.AGENT_TOKEN ?? ''
  if (!agentTokenShape.test(token))
    problems.push(
      'AGENT_TOKEN must be the node’s agent token, plinth_node_… (shown once when the node was added)',
    )
  const reportSeconds = Number(env.AGENT_REPORT_SECONDS || '60')
  if (!Number.isInteger(reportSeconds) || reportSeconds < 1)
    problems.push('AGENT_REPORT_SECONDS must be whole seconds')
  const settings = {
    panelUrl,
    token,
    dataDir: resolve(env.AGENT_DATA_DIR || './agent-data'),
    httpPort: port('SITES_HTTP_PORT', 80),
    httpsPort: port('SITES_HTTPS_PORT', 443),
    reportSeconds,
  }
  if (problems.length > 0) throw new AgentSettingsError(problems)
  return settings
}
