// `/backup-targets/new` (staff): adds a target. The panel checks it before keeping it (it connects, logs in, and
// writes and removes a file where repositories go); a refusal says which field it is about, and nothing is kept.

import { useState } from 'react'
import {
  CheckboxField,
  FormFooter,
  Link,
  navigate,
  PageHeader,
  Section,
  SelectField,
  TextAreaField,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api, type Schemas } from './api.ts'
import { type TargetKind, targetBody, targetFields, targetKindOptions } from './target-kinds.ts'

type Body = Schemas['CreateBackupTargetBody']

export function BackupTargetNewPage() {
  const [kind, setKind] = useState<TargetKind>('local')
  const form = useApiForm(
    (data) => {
      const body = {
        name: textOf(data, 'name') ?? '',
        kind,
        ...targetBody(kind, data),
        ...(data.get('default') ? { default: true } : {}),
      } as Body
      return unwrap(api.POST('/api/v1/backup-targets', { body }))
    },
    { onSuccess: () => navigate('/backup-targets') },
  )
  return (
    <>
      <PageHeader
        title="Add backup target"
        subtitle={<Link to="/backup-targets">Back to backup targets</Link>}
      />
      <Section title="New backup target">
        <form onSubmit={form.submit} noValidate data-testid="backup-target-form">
          <TextField form={form} name="name" label="Name" autoComplete="off" spellCheck={false} />
          <SelectField
            form={form}
            name="kind"
            label="Kind"
            value={kind}
            onChange={(event) => setKind(event.target.value as TargetKind)}
            options={targetKindOptions}
          />
          {targetFields[kind].map((field) =>
            field.multiline ? (
              <TextAreaField
                key={`${kind}-${field.name}`}
                form={form}
                name={field.name}
                label={field.label}
                hint={field.hint}
                rows={5}
                spellCheck={false}
              />
            ) : (
              <TextField
                key={`${kind}-${field.name}`}
                form={form}
                name={field.name}
                label={field.label}
                hint={field.hint}
                type={field.secret ? 'password' : 'text'}
                inputMode={field.number ? 'numeric' : undefined}
                autoComplete={field.secret ? 'new-password' : 'off'}
                spellCheck={false}
              />
            ),
          )}
          {kind === 'local' ? (
            <p className="muted">
              Each site’s repository is kept on its own node: quick to restore, but lost with the node.
            </p>
          ) : null}
          <CheckboxField form={form} name="default" label="Make it the default target" />
          <p className="muted">The panel checks the target now, and keeps it only if it can write there.</p>
          <FormFooter form={form}>Add backup target</FormFooter>
        </form>
      </Section>
    </>
  )
}
