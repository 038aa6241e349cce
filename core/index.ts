// The kernel's public contract: everything a plugin, host or example may import. Nothing else in core/ is public.

export type { Static, TObject, TSchema } from '@sinclair/typebox'
export { Type as t } from '@sinclair/typebox'
export { type AuditActor, writeAudit } from './audit/audit-log.ts'
export {
  type Caller,
  type CallerKind,
  type CallerMembership,
  type CallerToken,
  customerInView,
  scopesOnCustomer,
  wildcardScope,
} from './auth/caller.ts'
export { isTeamRole, type TeamRole, teamRoles } from './auth/roles.ts'
export { createSecretBox, type SecretBox } from './crypto/secret-box.ts'
export type { EventConsumer, KnownEvent, OutboxEvent } from './events/event-consumer.ts'
export {
  type ApiToken,
  checkTokenRequest,
  issueApiToken,
  type TokenRequest,
  tokenRequestCodes,
} from './identity/api-tokens.ts'
export { TeamRole as TeamRoleSchema, User as UserSchema } from './identity/schemas.ts'
export { reviewTokenRequest } from './identity/token-request.ts'
export {
  createUser,
  findUserByEmail,
  insertUser,
  prepareUser,
  type User,
  UserError,
} from './identity/users.ts'
export { idPattern, newId, nowIso } from './ids/ids.ts'
export {
  type JobDefinition,
  JobFailure,
  type JobRequest,
  type JobRun,
  type JobStatus,
  type JobSubject,
  jobStatuses,
} from './jobs/job-definition.ts'
export { type Page, pageOf, pageQuery } from './pagination/paginate.ts'
export {
  type ListFilters,
  type ListFilterValue,
  type ListSource,
  type PreparedList,
  preparedList,
} from './pagination/prepared-list.ts'
export { createPanel, type Panel, type PanelOptions } from './panel/create-panel.ts'
export { defaultLimits, type PanelLimits } from './panel/limits.ts'
export {
  type BackgroundTask,
  definePlugin,
  type EventDefinition,
  type PluginContext,
  type PluginDefinition,
  type ScopeDefinition,
} from './plugin/define-plugin.ts'
export {
  defineExtensionPoint,
  type ExtensionPointRef,
  type ExtensionRegistry,
} from './plugin/extension-point.ts'
export { PluginResolutionError } from './plugin/resolve-plugins.ts'
export {
  type AuditInput,
  defineRoute,
  type EventInput,
  type HandlerInput,
  Reply,
  type RouteCredential,
  type RouteDefinition,
  type RouteMethod,
} from './plugin/route.ts'
export { defineService, type ServiceRef } from './plugin/service.ts'
export { nonBlank } from './problem/field-checks.ts'
export { FieldErrors } from './problem/field-errors.ts'
export { fieldCodes, kernelProblems } from './problem/kernel-problems.ts'
export { fieldProblem, Problem, type ProblemItem, problemMediaType } from './problem/problem.ts'
export { defineProblems, type ProblemCode, type ProblemRef } from './problem/problem-code.ts'
export {
  type CustomerLimits,
  type CustomerStanding,
  customerLimitsService,
} from './quotas/customer-limits.ts'
export {
  checkQuotaLimits,
  combineLimits,
  parseQuotaLimits,
  type QuotaLimits,
  QuotaLimitsSchema,
  type QuotaMetric,
  quotaMetrics,
} from './quotas/quota-limits.ts'
export { quotaProblems } from './quotas/quota-problems.ts'
export type { CustomerQuota, QuotaRequest, QuotaUse } from './quotas/quotas.ts'
export { type Migration, migrate, sql } from './store/migrations.ts'
export { preparedQuery } from './store/prepared-query.ts'
export { openSqliteStore, type SqliteStoreOptions } from './store/sqlite-store.ts'
export type { Db, Store, Trx } from './store/store.ts'
export { brandForRecord } from './tenancy/brand-for-record.ts'
export {
  type BrandDirectory,
  brandDirectoryService,
  selectVisible,
  type TenantDirectory,
  type TenantView,
  tenantDirectoryService,
  visibleTo,
} from './tenancy/tenant-view.ts'
export {
  addMember,
  brandOfCustomer,
  changeMemberRole,
  countOwners,
  findMember,
  type Member,
  membersQuery,
  registerTenant,
  removeMember,
} from './tenancy/tenants.ts'
export {
  adjustUsage,
  recordTraffic,
  type Usage,
  type UsageMetric,
  usageMetrics,
  usageOf,
} from './usage/usage-counters.ts'
