// A secret the API shows once (a token, a password): shown with a copy button and the warning that it will not be
// shown again.

import { useState } from 'react'

export function SecretOnce({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false)
  return (
    <div className="notice notice-secret" role="status">
      <p>
        <strong>{label}</strong> — shown only now; copy it before leaving this page.
      </p>
      <p className="secret-row">
        <code className="secret" data-testid="secret-value">
          {value}
        </code>
        <button
          type="button"
          className="button secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(value).then(() => setCopied(true))
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
      </p>
    </div>
  )
}
