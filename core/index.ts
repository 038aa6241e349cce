// The plugin contract: everything a plugin or an example plugin may import from the kernel. Hosts have their own
// door (core/host.ts); tests theirs (hosts/testing/index.ts). Nothing else in core/ is public.

export type { Static, TObject, TSchema } from '@sinclair/typebox'
export { Type as t } from '@sinclair/typebox'
export { type AuditActor, writeAudit } from './audit/audit-log.ts'
export { type Caller, type CallerKind, customerInView } from './auth/caller.ts'
export { type TeamRole, teamRoles } from './auth/roles.ts'
export { type TokenFormat, tokenFormat } from './auth/token-format.ts'
export type { SecretBox } from './crypto/secret-box.ts'
export type { EventConsumer, KnownEvent, OutboxEvent } from './events/event-consumer.ts'
export {
  type EventStreamFrame,
  type EventStreamWriter,
  serverSentEvent,
  serverSentEventStream,
} from './http/server-sent-events.ts'
export type { PanelSocket, SocketHandler } from './http/socket-upgrade.ts'
export { TeamRole as TeamRoleSchema } from './identity/schemas.ts'
export { type UserRef, userDependents } from './identity/user-deletion.ts'
export { findUserByEmail, type User } from './identity/users.ts'
export { idPattern, newId, nowIso } from './ids/ids.ts'
export { abortable } from './jobs/abortable.ts'
export {
  JobAttemptFailure,
  type JobDefinition,
  JobFailure,
  type JobOutputStream,
  type JobPriority,
  type JobRequest,
  type JobRun,
  jobOutputLimits,
} from './jobs/job-definition.ts'
export { type JobStanding, jobIsLive, jobStanding, jobTrouble } from './jobs/job-queue.ts'
export { prefersHtml } from './openapi/docs-page.ts'
export { keyedList } from './pagination/keyed-list.ts'
export { type PreparedList, preparedList } from './pagination/prepared-list.ts'
export { type AreaScopes, areaScopes } from './plugin/area-scopes.ts'
export {
  type ChangeDeclaration,
  type ChangedResource,
  type CountedMetric,
  Recorded,
  type RecordedAudit,
  recorded,
  unchanged,
} from './plugin/change.ts'
export {
  type BackgroundTask,
  type CancelledJob,
  type CounterMetric,
  definePlugin,
  type EventDefinition,
  type GaugeDefinition,
  type GaugeMetric,
  type HistogramDefinition,
  type HistogramMetric,
  type LogFields,
  type Logger,
  type MetricDefinition,
  type MetricLabels,
  type PluginContext,
  type PluginDefinition,
  type PluginMetrics,
  type ResourceLimitDefinition,
  type ScopeDefinition,
  type UsageMetricDefinition,
  type UsageSection,
} from './plugin/define-plugin.ts'
export {
  type Blocker,
  blockersOf,
  type Dependent,
  defineDependents,
  detachDependents,
  refuseWhileBlocked,
  removeDependents,
} from './plugin/dependents.ts'
export { enumOf } from './plugin/enum-of.ts'
export {
  defineExtensionPoint,
  type ExtensionPointRef,
  type ExtensionRegistry,
} from './plugin/extension-point.ts'
export { type ItemRows, itemRows, type NewItemRow } from './plugin/item-rows.ts'
export type { ListDeclaration, ListFilter } from './plugin/list-declaration.ts'
export type { ReadinessCheck, ReadinessOutcome, ReadinessReason } from './plugin/readiness-check.ts'
export { resourceItem } from './plugin/resource-item.ts'
export {
  type Representation,
  type ResourceChange,
  type ResourceDeclaration,
  resourceEvents,
  resourceRoutes,
} from './plugin/resource-routes.ts'
export {
  type AuditInput,
  defineRoute,
  type EventInput,
  type HandlerInput,
  type IdParams,
  Reply,
  type RouteCredential,
  type RouteDefinition,
  type RouteResponse,
} from './plugin/route.ts'
export { defineService, type ServiceRef } from './plugin/service.ts'
export type { WebRoute } from './plugin/web-route.ts'
export { nonBlankText } from './problem/field-checks.ts'
export { FieldErrors } from './problem/field-errors.ts'
export { defineFormat } from './problem/formats.ts'
export { kernelProblems } from './problem/kernel-problems.ts'
export { fieldProblem, Problem } from './problem/problem.ts'
export { defineProblems, limitReached, type ProblemRef } from './problem/problem-code.ts'
export {
  type CustomerLimits,
  type CustomerStanding,
  customerLimitsService,
} from './quotas/customer-limits.ts'
export type { PlanSettingDefinition, PlanSettings } from './quotas/plan-settings.ts'
export type { QuotaLimits } from './quotas/quota-limits.ts'
export type { CustomerQuota, Quotas } from './quotas/quotas.ts'
export { type Listening, listenWhileRunning } from './store/listening.ts'
export { type Migration, type MigrationContext, sql } from './store/migrations.ts'
export { preparedInsert, preparedQuery } from './store/prepared-query.ts'
export { claimRows, lockRows } from './store/row-locks.ts'
export { createTableOf, type ItemTable, tablesMigration } from './store/schema-table.ts'
export type { Db, StopListening, Store, TransactionOptions, Trx } from './store/store.ts'
export { brandForRecord } from './tenancy/brand-for-record.ts'
export { brandHolders } from './tenancy/brand-holders.ts'
export { findVisible, orNotFound } from './tenancy/find-visible.ts'
export type { ForgottenTenant, Member, Tenancy } from './tenancy/tenancy.ts'
export {
  type BrandDirectory,
  brandDirectoryService,
  selectVisible,
  type TenantDirectory,
  type TenantView,
  tenantDirectoryService,
} from './tenancy/tenant-view.ts'
export { type TableTenancy, type VisibleTable, visibleTable } from './tenancy/visible-table.ts'
export type { UsageCounters } from './usage/usage-counters.ts'
