// A PEM text area with a file reader beside it: pasting works, and so does choosing the `.pem`/`.crt`/`.key` file,
// which is read in the browser and put in the text area (nothing is sent until the form is). A certificate can be
// refused for several reasons at once (a CA certificate, and self-signed): every one shows at the field.

import { useId, useState } from 'react'
import type { ApiForm } from '../../console/kit.ts'

/** Larger files are no PEM the API would take (64 KiB a field). */
const maxBytes = 256 * 1024

export function PemField<R>({
  form,
  name,
  label,
  fileLabel,
  hint,
}: {
  form: ApiForm<R>
  name: string
  label: string
  fileLabel: string
  hint: string
}) {
  const id = useId()
  const [value, setValue] = useState('')
  const [fileProblem, setFileProblem] = useState<string | null>(null)
  form.register(name)
  const messages = (form.problem?.errors ?? [])
    .filter((item) => item.location === `body.${name}`)
    .map((item) => item.message)
  const describedBy = [`${id}-hint`, messages.length ? `${id}-error` : null].filter(Boolean).join(' ')
  return (
    <div className={`field pem-field${messages.length ? ' has-error' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        name={name}
        className="pem"
        rows={6}
        spellCheck={false}
        autoComplete="off"
        value={value}
        onChange={(event) => setValue(event.target.value)}
        aria-invalid={messages.length ? true : undefined}
        aria-describedby={describedBy}
      />
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {messages.length ? (
        <div className="field-error" id={`${id}-error`}>
          {messages.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      ) : null}
      <div className="pem-file">
        <label htmlFor={`${id}-file`}>{fileLabel}</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".pem,.crt,.cer,.key,.txt,application/x-pem-file,text/plain"
          aria-describedby={fileProblem ? `${id}-file-error` : undefined}
          onChange={(event) => {
            const file = event.target.files?.[0]
            if (!file) return
            if (file.size > maxBytes) {
              setFileProblem(`${file.name} is larger than a PEM file would be.`)
              return
            }
            setFileProblem(null)
            file.text().then(setValue, () => setFileProblem(`${file.name} could not be read.`))
          }}
        />
        {fileProblem ? (
          <p className="field-error" id={`${id}-file-error`}>
            {fileProblem}
          </p>
        ) : null}
      </div>
    </div>
  )
}
