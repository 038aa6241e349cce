// A node's limits for its sites: which kinds it enforces (from what its agent reported) and the defaults its sites
// take where neither the site nor its plan sets one, changed by staff (`PATCH /nodes/{id}` `siteDefaults`).

import {
  Facts,
  FormProblem,
  formatCount,
  numberOf,
  SavedNotice,
  SubmitButton,
  TextField,
  unwrap,
  useEditForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'

type Node = Schemas['Node']
type Defaults = Schemas['NodeSiteDefaults']

const kindLabels = { cpu: 'CPU', memory: 'Memory', processes: 'Processes', disk: 'Disk' } as const

/** Which kinds of limit the node enforces, and how or why not. */
export function NodeEnforcement({ node }: { node: Node }) {
  const limits = node.agent.capabilities?.limits
  if (!limits)
    return <p className="empty">The node has not said which limits it enforces (an older agent): none are.</p>
  return (
    <Facts
      items={(Object.keys(kindLabels) as (keyof typeof kindLabels)[]).map((kind) => [
        kindLabels[kind],
        limits[kind].enforced ? `Enforced: ${limits[kind].how}` : `Not enforced: ${limits[kind].how}`,
      ])}
    />
  )
}

const fields = [
  { name: 'cpuPercent', label: 'CPU (% of one core)', hint: '100 is one core.', min: 1 },
  {
    name: 'memoryMB',
    label: 'Memory (MB)',
    hint: 'All of a site’s processes together; at least 16.',
    min: 16,
  },
  { name: 'processes', label: 'Processes', hint: 'Processes and threads at once.', min: 1 },
] as const satisfies readonly { name: keyof Defaults; label: string; hint: string; min: number }[]

const shown = (value: number | null) => (value === null ? 'unlimited' : formatCount(value))

/** The node's defaults for its sites, as a form for staff who manage nodes, else as facts. */
export function NodeSiteDefaults({ node, editable }: { node: Node; editable: boolean }) {
  const form = useEditForm((data) => {
    const siteDefaults: Defaults = {
      cpuPercent: numberOf(data, 'siteDefaults.cpuPercent') ?? null,
      memoryMB: numberOf(data, 'siteDefaults.memoryMB') ?? null,
      processes: numberOf(data, 'siteDefaults.processes') ?? null,
    }
    return unwrap(
      api.PATCH('/api/v1/nodes/{id}', { params: { path: { id: node.id } }, body: { siteDefaults } }),
    )
  })
  if (!editable)
    return <Facts items={fields.map((field) => [field.label, shown(node.siteDefaults[field.name])])} />
  return (
    <form onSubmit={form.submit} noValidate data-testid="node-site-defaults">
      <p className="hint">
        What a site on this node may take where neither the site nor its plan sets a limit. Empty for no
        limit. A change reaches the node’s sites through an update job each.
      </p>
      {fields.map((field) => (
        <TextField
          key={field.name}
          form={form}
          name={`siteDefaults.${field.name}`}
          label={field.label}
          type="number"
          min={field.min}
          step={1}
          inputMode="numeric"
          placeholder="Unlimited"
          defaultValue={node.siteDefaults[field.name] ?? ''}
          hint={field.hint}
        />
      ))}
      <FormProblem form={form} />
      <SavedNotice form={form} />
      <SubmitButton form={form}>Save defaults</SubmitButton>
    </form>
  )
}
