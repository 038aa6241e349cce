// A site's terminal: an interactive shell, and a form to run one command and read its output.

import { Section, useSession } from '../../console/kit.ts'
import { SiteStateFrame } from '../../sites/console/contract.ts'
import { RunCommandForm } from './run-command.tsx'
import { ShellTerminal } from './shell-terminal.tsx'

export function TerminalPage({ siteId }: { siteId: string }) {
  const session = useSession()
  return (
    <SiteStateFrame siteId={siteId} title="Terminal">
      {() =>
        session.can('site:shell') ? (
          <>
            <Section title="Shell">
              <p className="muted">
                Bash on the site’s server, as the site’s own user, confined to its files (<code>/htdocs</code>
                , <code>/tmp</code>, <code>/logs</code>). Sessions are recorded (output only) and audited.
              </p>
              <ShellTerminal siteId={siteId} />
            </Section>
            <Section title="Run a command">
              <RunCommandForm siteId={siteId} />
            </Section>
          </>
        ) : (
          <p className="notice notice-info">Your role does not include running commands in this site.</p>
        )
      }
    </SiteStateFrame>
  )
}
