// The scopes a new token may carry, as checkboxes: `*` (everything the creator may do, now and later) and each
// scope the caller holds (`/me`'s scopes), grouped by resource. A refused scope is named in the form's banner.

import type { ApiForm } from '../../components/form.tsx'
import { useSession } from '../../session.tsx'

/** Scopes grouped by the resource before their colon, in order. */
function groupScopes(scopes: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>()
  for (const scope of [...scopes].sort()) {
    const resource = scope.split(':')[0] ?? scope
    groups.set(resource, [...(groups.get(resource) ?? []), scope])
  }
  return [...groups.entries()]
}

export function ScopeChoices<R>({ form }: { form: ApiForm<R> }) {
  const { me } = useSession()
  form.register('scopes')
  const message = form.problem?.fieldMessage('scopes') ?? null
  const scopes = me.scopes.filter((scope) => scope !== '*')
  return (
    <fieldset
      className={`token-scope-choices${message ? ' has-error' : ''}`}
      aria-describedby={message ? 'token-scopes-error' : 'token-scopes-hint'}
    >
      <legend>Scopes</legend>
      <p className="hint" id="token-scopes-hint">
        What the token may do. It never does more than you may at the time it is used.
      </p>
      {message ? (
        <p className="field-error" id="token-scopes-error">
          {message}
        </p>
      ) : null}
      <label className="token-scope-all">
        <input type="checkbox" name="scopes" value="*" /> <code>*</code> everything you may do
      </label>
      <div className="token-scope-groups">
        {groupScopes(scopes).map(([resource, group]) => (
          <div className="token-scope-group" key={resource}>
            {group.map((scope) => (
              <label key={scope}>
                <input type="checkbox" name="scopes" value={scope} /> {scope}
              </label>
            ))}
          </div>
        ))}
      </div>
    </fieldset>
  )
}
