// The `php` and `static` site types: files under a document root (optionally a folder of `htdocs/`), served with
// PHP through the site's own PHP-FPM master (`php`) or by nginx alone (`static`: no master at all). Each installs
// the node application of its kind, which writes a small default index its owner replaces.

import { fieldProblem, JobFailure, type PluginContext, t } from '../../core/index.ts'
import { type Node, nodeDirectory } from '../nodes/contract.ts'
import type { CreatedSite, SiteType } from '../sites/contract.ts'
import { phpSiteTypeNames } from './contract.ts'
import { isDocumentRoot } from './document-root.ts'
import { phpProblems } from './problems.ts'
import { savePhpSite } from './site-php.ts'

const RootOptions = (what: string) =>
  t.Object(
    {
      root: t.Optional(
        t.String({
          maxLength: 200,
          description:
            'The document root, a folder under `htdocs/` (`public`, `web/public`): relative, names of letters, digits, `_`, `.`, `-`, none starting with a dot. Left out: `htdocs/` itself.',
        }),
      ),
    },
    { description: `Options of a ${what} site (\`type: "${what}"\` only).` },
  )

const RootAnswer = (what: string) =>
  t.Object(
    { root: t.String({ description: 'The document root under `htdocs/`; empty: `htdocs/` itself.' }) },
    { description: `The ${what} site’s document root.` },
  )

/** What `node` lacks for sites of application `kind` (none for a node laying out files only by choice). */
function lacksFor(node: Node, kind: string): string[] {
  const capabilities = node.agent.capabilities
  if (!capabilities) return []
  const serving = capabilities.missing.filter((lack) => lack.for === 'serving sites')
  if (capabilities.mode === 'files-only' && serving.length === 0) return []
  if (capabilities.applications[kind]) return []
  const named = capabilities.missing.filter(
    (lack) => lack.for === 'serving sites' || lack.for === `${kind} sites`,
  )
  return named.length > 0
    ? named.map((lack) => lack.what)
    : [`the ${kind} site application (update the node)`]
}

/** A site type of the plugin: `php` (PHP on) or `static` (nginx alone). */
function rootSiteType(context: PluginContext, kind: 'php' | 'static'): SiteType {
  const nodes = () => context.use(nodeDirectory)
  return {
    name: kind,
    description:
      kind === 'php'
        ? 'A PHP site: your files under a document root, `.php` files run by the site’s own PHP-FPM (its version and settings through `/sites/{id}/php`), any other path tried as a file and then as `/index.php`.'
        : 'A static site: your files under a document root served by nginx alone; no PHP runs (a `.php` path answers 404).',
    requires: kind === 'php' ? ['nginx', 'php'] : ['nginx'],
    createOptions: {
      field: kind,
      schema: RootOptions(kind),
      answer: RootAnswer(kind),
      problems: [phpProblems.invalid_document_root],
    },
    serving: { php: kind === 'php' },
    async created(trx, site, given) {
      const root = ((given ?? {}) as { root?: string }).root?.replace(/\/+$/, '') ?? ''
      if (!isDocumentRoot(root)) throw fieldProblem(phpProblems.invalid_document_root, `body.${kind}.root`)
      await savePhpSite(trx, site, { root, version: null, settings: {} })
      return { root }
    },
    async lacksOn(_db, node) {
      return lacksFor(node, kind)
    },
    async app(_job, site: CreatedSite) {
      const node = site.nodeId ? await nodes().find(site.nodeId) : null
      const capabilities = node?.agent.capabilities ?? null
      if (capabilities?.applications[kind]) return { kind, settings: {} }
      // A node laying out files only by its operator's choice gets the placeholder page, as WordPress sites do.
      const filesOnlyByChoice =
        node !== null &&
        (capabilities === null
          ? node.driver === 'local' && node.ready
          : capabilities.mode === 'files-only' &&
            !capabilities.missing.some((lack) => lack.for === 'serving sites'))
      if (filesOnlyByChoice) return undefined
      throw new JobFailure(
        `The site's node cannot serve ${kind} sites now${capabilities ? ` (it lacks ${lacksFor(node as Node, kind).join(', ')}; \`${capabilities.setup}\` installs it)` : ' (it has not said what it runs)'}. Retry once it does.`,
        `${kind}_unavailable`,
      )
    },
  }
}

/** The two site types. */
export const phpSiteTypes = (context: PluginContext): SiteType[] => [
  rootSiteType(context, phpSiteTypeNames.php),
  rootSiteType(context, phpSiteTypeNames.static),
]
