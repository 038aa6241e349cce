// A page's heading with its actions, the way back above it, and titled sections. The heading takes the focus after
// navigation (see router.navigate), so it is focusable.

import { type ReactNode, useEffect } from 'react'
import { Link } from '../router.tsx'

export function PageHeader({
  title,
  subtitle,
  actions,
}: {
  title: string
  subtitle?: ReactNode
  actions?: ReactNode
}) {
  useEffect(() => {
    document.title = `${title} · ${document.documentElement.dataset.brandName ?? 'Control panel'}`
  }, [title])
  return (
    <header className="page-header">
      <div>
        <h1 tabIndex={-1}>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
      </div>
      {actions ? <div className="actions">{actions}</div> : null}
    </header>
  )
}

/**
 * The way back above a page's heading: a link to the list (or page) it belongs to, then, when given, this page's
 * name. @example <Breadcrumbs to="/nodes" label="Nodes" here={node.name} />
 */
export function Breadcrumbs({ to, label, here }: { to: string; label: string; here?: ReactNode }) {
  return (
    <nav className="breadcrumbs" aria-label="Breadcrumbs">
      <Link to={to}>{label}</Link>
      {here === undefined ? null : (
        <>
          <span aria-hidden="true">›</span>
          <span>{here}</span>
        </>
      )}
    </nav>
  )
}

export function Section({
  title,
  children,
  actions,
}: {
  title: string
  children: ReactNode
  actions?: ReactNode
}) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
  return (
    <section className="section" aria-labelledby={id}>
      <div className="section-header">
        <h2 id={id}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  )
}

/** A definition list of a resource's fields. */
export function Facts({ items }: { items: readonly (readonly [string, ReactNode])[] }) {
  return (
    <dl className="facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  )
}
