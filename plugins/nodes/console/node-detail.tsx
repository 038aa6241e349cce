// `/nodes/:id`: a node's facts, whether it can serve sites now and why not, what its agent reported it can run (read
// again every 15 s), its settings and its agent token.

import { useQuery } from '@tanstack/react-query'
import {
  Breadcrumbs,
  DeleteResource,
  ErrorNotice,
  Facts,
  formatTime,
  Loading,
  navigate,
  PageHeader,
  Section,
  StatusBadge,
  unwrap,
  useSession,
} from '../../console/kit.ts'
import { AgentState } from './agent-state.tsx'
import { api, type Schemas } from './api.ts'
import { NodeInventory } from './node-inventory.tsx'
import { Readiness } from './node-readiness.tsx'
import { NodeSettingsForm } from './node-settings-form.tsx'
import { NodeEnforcement, NodeSiteDefaults } from './node-site-limits.tsx'
import { RotateAgentToken } from './rotate-agent-token.tsx'
import { useDrivers } from './use-drivers.ts'

type Capabilities = NonNullable<Schemas['Node']['agent']['capabilities']>

function CapabilityFacts({ capabilities }: { capabilities: Capabilities | null }) {
  if (!capabilities) return <p className="empty">The node’s agent has not said yet what it can run.</p>
  return (
    <Facts
      items={[
        [
          'Mode',
          capabilities.mode === 'serving'
            ? 'Serving: nginx and PHP-FPM serve the sites'
            : 'Files only: nginx or PHP-FPM is missing, only the sites’ files are laid out',
        ],
        ['nginx', capabilities.nginx ?? 'not installed'],
        ['PHP', capabilities.php ?? 'not installed'],
        ...Object.entries(capabilities.applications).map(([kind, version]): [string, string] => [
          `Application: ${kind}`,
          version,
        ]),
        ['Services', Object.keys(capabilities.services).join(', ') || 'none'],
        ['A Unix user per site', capabilities.unixUsers ? 'Yes' : 'No'],
      ]}
    />
  )
}

/** What the node lacks, each with what it is for, and the one command that installs it on the node. */
function Lacks({ capabilities }: { capabilities: Capabilities | null }) {
  if (!capabilities) return null
  if (capabilities.missing.length === 0) return <p>Nothing: it has all its modules need.</p>
  return (
    <>
      <ul className="node-lacks">
        {capabilities.missing.map((lack) => (
          <li key={`${lack.what}:${lack.for}`}>
            {lack.what} <span className="muted">for {lack.for}</span>
            {lack.fix ? <span>: {lack.fix}</span> : null}
          </li>
        ))}
      </ul>
      {capabilities.missing.some((lack) => !lack.fix) ? (
        <p>
          On the node, as root: <code>{capabilities.setup}</code> installs what Debian has of it.
        </p>
      ) : null}
    </>
  )
}

export function NodeDetail({ id }: { id: string }) {
  const session = useSession()
  const node = useQuery({
    ...api.query('/api/v1/nodes/{id}', { params: { path: { id } } }),
    refetchInterval: 15_000,
  })
  const drivers = useDrivers()
  const breadcrumbs = <Breadcrumbs to="/nodes" label="Nodes" here={node.data?.name ?? id} />
  if (node.isPending) return <Loading />
  if (node.isError)
    return (
      <>
        {breadcrumbs}
        <PageHeader title="Node" />
        <ErrorNotice error={node.error} />
      </>
    )
  const current = node.data
  // The panel runs the nodes of its `local` driver itself: those are never deleted (409 local_node).
  const runsItself =
    current.driver === 'local' && (drivers.data ?? []).some((driver) => driver.name === 'local')
  return (
    <>
      {breadcrumbs}
      <PageHeader title={`Node ${current.name}`} subtitle={current.hostname} />
      <Section title="Details">
        <Facts
          items={[
            ['Id', <code key="id">{current.id}</code>],
            ['Hostname', current.hostname],
            ['Driver', current.driver],
            ['Status', <StatusBadge key="status" status={current.status} />],
            ['Agent', <AgentState key="agent" agent={current.agent} />],
            ['Agent version', current.agent.version ?? '—'],
            ['Created', formatTime(current.createdAt)],
            ['Updated', formatTime(current.updatedAt)],
          ]}
        />
      </Section>
      <Section title="Readiness">
        <Readiness node={current} />
      </Section>
      <Section title="Capabilities">
        <CapabilityFacts capabilities={current.agent.capabilities} />
      </Section>
      <Section title="Limits it enforces">
        <NodeEnforcement node={current} />
      </Section>
      <Section title="Site defaults">
        <NodeSiteDefaults node={current} editable={session.can('node:manage')} />
      </Section>
      <Section title="What it lacks">
        <Lacks capabilities={current.agent.capabilities} />
      </Section>
      <Section title="What it holds">
        <NodeInventory node={current} />
      </Section>
      {session.can('node:manage') ? (
        <>
          <Section title="Settings">
            <NodeSettingsForm node={current} />
          </Section>
          <Section title="Agent token">
            <RotateAgentToken node={current} />
          </Section>
          {runsItself ? null : (
            <Section title="Delete node">
              <DeleteResource
                label="Delete node"
                run={() => unwrap(api.DELETE('/api/v1/nodes/{id}', { params: { path: { id: current.id } } }))}
                onDeleted={() => navigate('/nodes')}
              >
                Only a node nothing lives on can be deleted: no sites, and no databases on its own database
                server (which goes with it). Its agent token stops working at once.
              </DeleteResource>
            </Section>
          )}
        </>
      ) : null}
    </>
  )
}
