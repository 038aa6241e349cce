// The files plugin: a site's files through the API (list, stat, read with ranges, write with entity tags, streamed
// uploads, directories, move, copy, delete, chmod, download links), carried out on the site's node by its `files`
// service as the site's Unix user, every path confined to the site.

import { definePlugin } from '../../core/index.ts'
import { addConsolePages } from '../console/contract.ts'
import { customerDependents } from '../customers/contract.ts'
import { nodeModules } from '../nodes/contract.ts'
import { archiveJobs } from './archive-jobs.ts'
import { type FilesTables, filesMigrations } from './migrations.ts'
import filesNodeModule from './node/index.ts'
import { filesProblems } from './problems.ts'
import { archiveRoutes } from './routes/archive-routes.ts'
import { contentRoutes } from './routes/content-routes.ts'
import { downloadRoutes } from './routes/download-routes.ts'
import { fileRoutes } from './routes/file-routes.ts'
import { uploadRoutes } from './routes/upload-routes.ts'

/** Options of {@link filesPlugin}. */
export interface FilesOptions {
  /** The largest file a write takes (`UPLOAD_LIMIT_BYTES`). Default 10 GiB. */
  readonly uploadLimitBytes?: number
  /** The most bytes one read answers (`FILES_READ_LIMIT_BYTES`). Default 16 MiB. */
  readonly readLimitBytes?: number
}

/** Site files, for the `site:files` scope. */
export const filesPlugin = (options: FilesOptions = {}) =>
  definePlugin({
    name: 'files',
    version: '0.1.0',
    description:
      'A site’s files: the file manager’s operations, carried out on the site’s node as the site’s user.',
    requires: ['customers', 'sites', 'nodes'],
    // Its console pages, when the installation has a console.
    enhances: ['console'],
    problems: filesProblems,
    migrations: filesMigrations,
    setup(context) {
      addConsolePages(context, import.meta.dir)
      context.extensionPoint(nodeModules).add({ module: filesNodeModule })
      // A deleted customer's uploads under way are forgotten (their bytes go with the site's home).
      context.extensionPoint(customerDependents).add({
        name: 'files',
        remove: (run, customer) =>
          run.transaction(async (trx) => {
            await trx
              .withTables<FilesTables>()
              .deleteFrom('file_uploads')
              .where('customer_id', '=', customer.id)
              .execute()
          }),
      })
    },
    jobs: (context) => archiveJobs(context),
    routes: (context) => {
      const uploadBytes = options.uploadLimitBytes ?? 10 * 1024 ** 3
      return [
        ...fileRoutes(context),
        ...archiveRoutes(context),
        ...contentRoutes(context, { readBytes: options.readLimitBytes ?? 16 * 1024 * 1024, uploadBytes }),
        ...uploadRoutes(context, { uploadBytes }),
        ...downloadRoutes(context),
      ]
    },
  })
