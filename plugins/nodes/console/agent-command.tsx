// What to run on a remote node with its new agent token (docs/nodes.md, "Node agents"). The command carries the
// token, so it is shown only beside it, once.

import { SecretOnce } from '../../console/kit.ts'

export function AgentToken({ driver, token }: { driver: string; token: string }) {
  // The panel's URL as this browser reaches it; behind a proxy that is the public one, which the agent needs too.
  const command = `PANEL_URL=${window.location.origin} AGENT_TOKEN=${token} AGENT_DATA_DIR=/srv/plinth-agent npm run agent`
  return (
    <div>
      <SecretOnce label="Agent token" value={token} />
      {driver === 'agent' ? (
        <>
          <p>
            On the node, as root, from a checkout of Plinth (after <code>npm ci</code> and{' '}
            <code>npm run agent -- setup</code>, which installs from Debian what the node needs), run the
            agent:
          </p>
          <pre className="agent-command">
            <code>{command}</code>
          </pre>
          <p className="muted">
            A systemd unit with <code>Restart=always</code> keeps it running. The node shows as connected once
            the agent asks for work.
          </p>
        </>
      ) : (
        <p className="muted">
          The <code>{driver}</code> driver runs its sites without an agent; keep the token in case one reports
          for this node.
        </p>
      )}
    </div>
  )
}
