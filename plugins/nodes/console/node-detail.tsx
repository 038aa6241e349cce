// `/nodes/:id`: a node's facts, what its agent reported it can run (read again every 15 s), its settings and its
// agent token.

import { useQuery } from '@tanstack/react-query'
import {
  Breadcrumbs,
  ErrorNotice,
  Facts,
  formatTime,
  Loading,
  PageHeader,
  Section,
  StatusBadge,
  useSession,
} from '../../console/kit.ts'
import { AgentState } from './agent-state.tsx'
import { api, type Schemas } from './api.ts'
import { NodeSettingsForm } from './node-settings-form.tsx'
import { RotateAgentToken } from './rotate-agent-token.tsx'

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
        [
          'Missing',
          capabilities.missing.length === 0
            ? 'nothing'
            : capabilities.missing.map((lack) => `${lack.what} (for ${lack.for})`).join('; '),
        ],
      ]}
    />
  )
}

export function NodeDetail({ id }: { id: string }) {
  const session = useSession()
  const node = useQuery({
    ...api.query('/api/v1/nodes/{id}', { params: { path: { id } } }),
    refetchInterval: 15_000,
  })
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
      <Section title="Capabilities">
        <CapabilityFacts capabilities={current.agent.capabilities} />
      </Section>
      {session.can('node:manage') ? (
        <>
          <Section title="Settings">
            <NodeSettingsForm node={current} />
          </Section>
          <Section title="Agent token">
            <RotateAgentToken node={current} />
          </Section>
        </>
      ) : null}
    </>
  )
}
