// Running one command in the site (`POST /sites/{id}/exec`), not through a shell unless asked: its output live,
// then its exit code and what it printed.

import { type ReactNode, useState } from 'react'
import {
  CheckboxField,
  type ConsoleSchemas,
  Facts,
  FormProblem,
  formatCount,
  JobProgress,
  numberOf,
  SubmitButton,
  TextField,
  textOf,
  unwrap,
  useApiForm,
} from '../../console/kit.ts'
import { api } from './api.ts'
import { explanationOf } from './shell-problem.tsx'

type Job = ConsoleSchemas['Job']

/** A finished `site.exec` job's result (docs/shell.md). */
interface ExecResult {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly timedOut: boolean
  readonly durationMs: number
  readonly stdout: string
  readonly stderr: string
  readonly truncated: boolean
}

/** What the command wrote to one stream, kept whole in the job's result (the live lines above may be cut). */
function Output({ label, text, open }: { label: string; text: string; open: boolean }) {
  if (!text) return <p className="muted">{label}: nothing.</p>
  const lines = text.replace(/\n$/, '').split('\n').length
  return (
    <details className="shell-exec-stream" open={open}>
      <summary>
        {label} ({lines} line{lines === 1 ? '' : 's'})
      </summary>
      <pre className="shell-exec-output">{text}</pre>
    </details>
  )
}

function ExecOutcome({ job }: { job: Job }) {
  const result = job.result as unknown as ExecResult | null
  if (!result) return null
  const ended: ReactNode = result.timedOut
    ? 'Killed at its timeout'
    : result.exitCode === null
      ? `Ended by ${result.signal ?? 'a signal'}`
      : String(result.exitCode)
  return (
    <div className="shell-exec-result">
      <Facts
        items={[
          ['Exit code', ended],
          ['Duration', `${formatCount(result.durationMs)} ms`],
        ]}
      />
      <Output label="Standard error" text={result.stderr} open={result.stderr !== ''} />
      <Output label="Standard output" text={result.stdout} open={false} />
      {result.truncated ? (
        <p className="muted">The output was longer than the panel keeps (1 MiB each): the rest was cut.</p>
      ) : null}
    </div>
  )
}

export function RunCommandForm({ siteId }: { siteId: string }) {
  const [finished, setFinished] = useState<Job | null>(null)
  const form = useApiForm(
    (data) => {
      const command = String(data.get('argv') ?? '').trim()
      // Split on spaces as the hint says; through bash, the whole line is bash's script.
      const argv =
        data.get('viaBash') === 'true' ? ['bash', '-c', command] : command.split(/\s+/).filter(Boolean)
      const timeoutSeconds = numberOf(data, 'timeoutSeconds')
      return unwrap(
        api.POST('/api/v1/sites/{id}/exec', {
          params: { path: { id: siteId } },
          body: {
            argv,
            ...(textOf(data, 'cwd') ? { cwd: textOf(data, 'cwd') } : {}),
            ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
          },
        }),
      )
    },
    { onSuccess: () => setFinished(null) },
  )
  return (
    <>
      <form className="shell-run" onSubmit={form.submit} noValidate>
        <TextField
          form={form}
          name="argv"
          label="Command"
          placeholder="wp plugin list"
          autoComplete="off"
          spellCheck={false}
          hint="Split on spaces into the program and its arguments and run as is: no quotes, pipes or variables, unless run through bash below."
        />
        <CheckboxField
          form={form}
          name="viaBash"
          label="Run through bash -c (for pipes, quotes and variables)"
        />
        <div className="form-inline">
          <TextField
            form={form}
            name="cwd"
            label="Working directory"
            defaultValue="/htdocs"
            autoComplete="off"
          />
          <TextField
            form={form}
            name="timeoutSeconds"
            label="Timeout (seconds)"
            type="number"
            inputMode="numeric"
            defaultValue="60"
            min={1}
            max={3600}
          />
        </div>
        <FormProblem form={form} />
        {explanationOf(form.problem) ? <p className="problem-hint">{explanationOf(form.problem)}</p> : null}
        <SubmitButton form={form}>Run command</SubmitButton>
      </form>
      {form.result ? (
        <div className="shell-exec">
          <p>
            Running <code>{form.result.argv.join(' ')}</code> in <code>{form.result.cwd}</code>
          </p>
          <JobProgress
            key={form.result.jobId}
            jobId={form.result.jobId}
            showOutput
            onFinished={setFinished}
          />
          {finished && finished.id === form.result.jobId ? <ExecOutcome job={finished} /> : null}
        </div>
      ) : null}
    </>
  )
}
