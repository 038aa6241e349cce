// The console's UI kit: the one door through which a plugin's console pages (its `console/` folder) reach the
// console. Declaring pages and navigation entries (a resource's list and item pages declared whole, their forms
// made from the served document's operations), a typed API client whose query keys come from the API's paths,
// the session, the router, and the shared pieces every area uses (forms that place refusals, cursor tables,
// customer and brand pickers, a job's live progress, secrets shown once), themed with the brand's colours.
// Browser code: the server never loads it (plugins name their console module by path, see contract.ts).

export { allPages } from './app/api/all-pages.ts'
export {
  type ApiClient,
  type ApiList,
  type ApiQuery,
  api as consoleApi,
  apiUrl,
  createApi,
  type ListPage,
  rawRequest,
  type Schemas as ConsoleSchemas,
  touch,
  unwrap,
} from './app/api/client.ts'
export { type BodyField, bodyFields, type OpenApiDocument, operationScope } from './app/api/operations.ts'
export { ApiProblem, type ProblemItem, problemOf } from './app/api/problem.ts'
export { type ApiQueryKey, apiKey } from './app/api/query-keys.ts'
export { useCapabilities, usePluginCapabilities } from './app/capabilities.ts'
export { ActionError, useAction } from './app/components/action.tsx'
export {
  type AddedMember,
  type TeamMemberTarget,
  TeamRoleField,
  useAddTeamMember,
} from './app/components/add-team-member.tsx'
export { type Bar, BarChart } from './app/components/bar-chart.tsx'
export { BrandField } from './app/components/brand-field.tsx'
export { useBrandName, useBrandOptions, useBrands } from './app/components/brands.ts'
export { ConfirmAction } from './app/components/confirm-action.tsx'
export { ConfirmButton } from './app/components/confirm-button.tsx'
export { type CreateField, CreateForm } from './app/components/create-form.tsx'
export { type Column, CursorTable, type RowRemoval } from './app/components/cursor-table.tsx'
export {
  type ChosenCustomer,
  CustomerField,
  useChosenCustomer,
  useCustomerOptions,
} from './app/components/customer-field.tsx'
export { CustomerName, customerColumn, useCustomerNames } from './app/components/customer-name.tsx'
export { useCustomer } from './app/components/customers.ts'
export { DeleteByJob } from './app/components/delete-by-job.tsx'
export { DeleteResource } from './app/components/delete-resource.tsx'
export {
  changedFields,
  SavedNotice,
  type Unchanged,
  unchanged,
  useEditForm,
} from './app/components/edit-form.tsx'
export { ExplainedProblem, type Explanations, explanationFrom } from './app/components/explained-problem.tsx'
export { Fieldset } from './app/components/fieldset.tsx'
export {
  type ApiForm,
  CheckboxField,
  FormFooter,
  FormProblem,
  numberOf,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
  textOf,
  useApiForm,
} from './app/components/form.tsx'
export { daysUntil, formatBytes, formatCount, formatTime } from './app/components/format.ts'
export { useIdempotencyKey } from './app/components/idempotency-key.ts'
export { JobProgress } from './app/components/job-progress.tsx'
export { ListField, listOf } from './app/components/list-field.tsx'
export {
  CustomerFilter,
  FilterForm,
  type FilterOption,
  QuerySelect,
  type SelectFilter,
} from './app/components/list-filters.tsx'
export { isoOfLocal, localOfIso } from './app/components/local-time.ts'
export {
  type BodyOf,
  type CreatedOf,
  type FieldChange,
  type FieldChanges,
  OperationForm,
  type PostPath,
} from './app/components/operation-form.tsx'
export { Breadcrumbs, Facts, PageHeader, Section } from './app/components/page.tsx'
export { PageTabs } from './app/components/page-tabs.tsx'
export {
  type ListCreate,
  type ResourceItem,
  type ResourceList,
  type ResourcePages,
  resourcePages,
} from './app/components/resource-pages.tsx'
export { SecretOnce } from './app/components/secret-once.tsx'
export { EmptyState, ErrorNotice, InlineError, Loading } from './app/components/states.tsx'
export { StatusBadge } from './app/components/status-badge.tsx'
export {
  isTeamRole,
  managesCustomer,
  roleOptions,
  rolesHint,
  type TeamRole,
} from './app/components/team-roles.ts'
export { UseMeter } from './app/components/use-meter.tsx'
export {
  type Audience,
  type ConsolePagesModule,
  type ConsoleRoute,
  type DashboardNotice,
  defineConsolePages,
  type NavEntry,
  type PageTab,
} from './app/console-pages.ts'
export { hrefOf, Link, navigate, setQuery, useLocation } from './app/router.tsx'
export { type Session, useSession } from './app/session.tsx'
export { textOn } from './app/theme.ts'
