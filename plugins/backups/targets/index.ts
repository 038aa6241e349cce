// The backup targets' part of the backups plugin, for its index to mount: routes, problems, the default target's
// migration, and what the rest of the plugin reads of a target (a site's repository location on it, the default).

export { defaultTargetName, targetMigrations } from './default-target.ts'
export { targetProblems } from './problems.ts'
export { locationFor, type RepositoryPurpose } from './repository-location.ts'
export { backupTargetRoutes as targetRoutes } from './routes/backup-targets.ts'
export { checkRepositoryName } from './target-check.ts'
export { defaultTargetRow, findTargetRow, toTarget } from './target-rows.ts'
