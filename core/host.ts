// What hosts need of the kernel: build a panel on a store, and act on it without a request (the CLI, the bench).
// Plugins import core/index.ts instead; tests hosts/testing/index.ts.

export { type AuditActor, writeAudit } from './audit/audit-log.ts'
export type { Caller } from './auth/caller.ts'
export { teamRoleDescriptions } from './auth/roles.ts'
export { type PanelSocket, type SocketHandler, socketUpgradeOf } from './http/socket-upgrade.ts'
export {
  cliActor,
  type DisabledChange,
  listApiTokensOf,
  listUsers,
  revokeApiTokenById,
  setUserDisabled,
} from './identity/account-controls.ts'
export { type ApiToken, issueApiToken } from './identity/api-tokens.ts'
export { reviewTokenRequest } from './identity/token-request.ts'
export {
  createUser,
  findUserByEmail,
  prepareUser,
  type User,
  UserError,
} from './identity/users.ts'
export { newId } from './ids/ids.ts'
export type { Page } from './pagination/paginate.ts'
export type { Catalogue } from './panel/catalogue.ts'
export { createPanel, type Panel, type PanelOptions } from './panel/create-panel.ts'
export { InstallationSecretMismatch, secretMatchesInstallation } from './panel/installation-secret.ts'
export { defaultLimits, type PanelLimits } from './panel/limits.ts'
export { jsonLinesLogger, type LogLevel, logLevels } from './panel/logger.ts'
export type { MetricsOptions } from './panel/metrics.ts'
export type { RequestRecord } from './panel/router.ts'
export type { LogFields, Logger, PluginDefinition } from './plugin/define-plugin.ts'
export { PluginResolutionError } from './plugin/resolve-plugins.ts'
export { fieldCodes, kernelProblems } from './problem/kernel-problems.ts'
export { parseQuotaLimits, type QuotaLimits } from './quotas/quota-limits.ts'
export { openPostgresStore, type PostgresStoreOptions } from './store/postgres-store.ts'
export { openSqliteStore, type SqliteStoreOptions } from './store/sqlite-store.ts'
export type { Store } from './store/store.ts'
export { brandDirectoryService, tenantDirectoryService } from './tenancy/tenant-view.ts'
export { kernelVersion } from './version.ts'
