// A site's redirects: list, read, create, change, delete (`/sites/{id}/redirects`, scopes `site:read` and
// `site:update`). Each change is checked against the site's other redirects and carried to its node by the site's
// `site.update` job, started in the change's transaction.

import { enumOf, type PluginContext, Problem, resourceRoutes, type Trx, t } from '../../../core/index.ts'
import {
  type SiteRef,
  siteDirectory,
  siteScopes,
  siteServingChanges,
  siteServingProblems,
} from '../../sites/contract.ts'
import { Redirect, RedirectCode, redirectMatches } from '../contract.ts'
import { redirectProblems as problems } from '../problems.ts'
import { redirects, redirectsOf } from '../repository.ts'
import { checkRedirect, redirectKey } from '../rules.ts'

const NewRedirect = t.Object(
  {
    from: t.String({ minLength: 1, maxLength: 1024, description: Redirect.properties.from.description }),
    match: t.Optional(enumOf(redirectMatches, { description: 'Default `exact`. See `Redirect.match`.' })),
    to: t.String({ minLength: 1, maxLength: 2048, description: Redirect.properties.to.description }),
    code: t.Optional({ ...RedirectCode, description: `Default 301. ${RedirectCode.description}` }),
  },
  { $id: 'NewRedirect' },
)
const RedirectChanges = t.Object(
  {
    from: t.Optional(NewRedirect.properties.from),
    match: t.Optional(enumOf(redirectMatches, { description: 'See `Redirect.match`.' })),
    to: t.Optional(NewRedirect.properties.to),
    code: t.Optional(RedirectCode),
  },
  { $id: 'RedirectChanges' },
)
type Rule = Pick<Redirect, 'from' | 'match' | 'to' | 'code'>

/** Options of the redirect routes. */
export interface RedirectRouteOptions {
  /** How many redirects a site may have. */
  readonly maxPerSite: number
}

const ruleProblems = [
  ...[problems.invalid_redirect_path, problems.unsafe_redirect_path, problems.redirect_path_query],
  ...[
    problems.redirect_path_not_normalised,
    problems.reserved_redirect_path,
    problems.invalid_redirect_target,
  ],
  ...[problems.redirect_target_scheme, problems.redirect_target_credentials, problems.redirect_loop],
  problems.duplicate_redirect,
]

/** The routes under `/sites/{id}/redirects`. */
export function redirectRoutes(context: PluginContext, options: RedirectRouteOptions) {
  const sites = context.use(siteDirectory)
  const serving = context.use(siteServingChanges)

  /** Refuses `rule` for `site` unless it is safe and no other redirect of the site (but `except`) has its path. */
  async function checked(trx: Trx, site: SiteRef, given: Rule, except?: string): Promise<Rule> {
    const rule = { ...given, to: checkRedirect(given, site.domain) }
    const others = (await redirectsOf(trx, site.id)).filter((other) => other.id !== except)
    if (others.some((other) => redirectKey(other) === redirectKey(rule)))
      throw new Problem(problems.duplicate_redirect, { extensions: { from: rule.from, match: rule.match } })
    if (except === undefined && others.length >= options.maxPerSite)
      throw new Problem(problems.redirect_limit_reached, { extensions: { limit: options.maxPerSite } })
    return rule
  }

  return resourceRoutes({
    item: Redirect,
    name: 'redirect',
    path: '/sites/:id/redirects',
    params: { id: 'site' },
    key: { redirectId: 'rdr' },
    scopes: { read: siteScopes.read, manage: siteScopes.update },
    parent: (db, view, params) => sites.find(db, view, params.id),
    table: {
      rows: redirects,
      parentColumn: 'siteId',
      lock: true,
      toItem: (row) => ({ ...row, code: Number(row.code) as Redirect['code'] }),
    },
    // Every change reaches the site's node through its update job, which reads every redirect when it runs.
    afterChange: ({ trx, parent }) => serving.apply(trx, parent),
    list: {
      summary: 'List a site’s redirects',
      description:
        'In the order they were made. nginx tries an exact path first, then the longest prefix that matches, whatever this order.',
    },
    read: { summary: 'Read a redirect' },
    create: {
      summary: 'Add a redirect to a site',
      description:
        'Checked (each refusal at its field), then carried to the site’s node by its `site.update` job (the site’s `jobId`).',
      body: NewRedirect,
      problems: [...ruleProblems, problems.redirect_limit_reached, ...siteServingProblems],
      record: { details: (redirect) => ({ from: redirect.from, match: redirect.match, to: redirect.to }) },
      async handler({ trx, parent: site, body }) {
        const rule = await checked(trx, site, {
          from: body.from,
          match: body.match ?? 'exact',
          to: body.to,
          code: (body.code ?? 301) as Redirect['code'],
        })
        return redirects.insert(trx, { siteId: site.id, customerId: site.customerId, ...rule })
      },
    },
    update: {
      summary: 'Change a redirect',
      body: RedirectChanges,
      problems: [...ruleProblems, ...siteServingProblems],
      record: { details: (redirect) => ({ from: redirect.from, match: redirect.match, to: redirect.to }) },
      async handler({ trx, parent: site, row, body }) {
        const current = { ...row, code: Number(row.code) as Redirect['code'] }
        const rule = await checked(
          trx,
          site,
          {
            from: body.from ?? current.from,
            match: body.match ?? current.match,
            to: body.to ?? current.to,
            code: (body.code ?? current.code) as Redirect['code'],
          },
          row.id,
        )
        return redirects.update(trx, current, rule)
      },
    },
    remove: {
      summary: 'Delete a redirect',
      problems: [...siteServingProblems],
      record: { details: (redirect) => ({ from: redirect.from, match: redirect.match }) },
    },
  })
}
