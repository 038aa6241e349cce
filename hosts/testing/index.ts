// The testing kit: what a plugin author's tests (and ours) import. A panel with the standard plugins and yours on
// an in-memory store, spoken to through fetch; fixtures; problem assertions; sessions; a real webhook receiver;
// waiting helpers; and the real hosts as processes.

export type { Page } from '../../core/host.ts'
export { deferred, waitFor } from '../../core/testing/async.ts'
export type { TestPanel } from '../../core/testing/create-test-panel.ts'
export { freePort } from '../../core/testing/free-port.ts'
export { expectFieldProblem, expectProblem, type ProblemBody } from '../../core/testing/problems.ts'
export {
  cookieOf,
  type LoginBody,
  login,
  type Session,
  sameOrigin,
  signIn,
} from '../../core/testing/sessions.ts'
export {
  brandA,
  brandB,
  customerA,
  customerB,
  type FixturePluginOptions,
  fixturePlugin,
  twoTenants,
} from '../../core/testing/tenancy-fixture.ts'
export { createTestUser, testPassword } from '../../core/testing/users.ts'
export {
  type ReceivedWebhook,
  type ReceiverAnswer,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../core/testing/webhook-receiver.ts'
// What runs on nodes: a node running given modules, site specs, where it keeps a site, requests to its nginx.
export {
  cgroupOf,
  eventually,
  networkTableOf,
  never,
  nodeWith,
  type PlinthNode,
  pidIn,
  processesOf,
  processesOfUid,
  processesRunning,
  readSiteState,
  request as requestSite,
  servingDataDir,
  sh,
  siteGroupCpuNanos,
  siteGroupPath,
  sitePaths,
  siteSpec,
} from '../../plugins/nodes/node/testing/serving.ts'
export { type RunningServer, servePanel } from '../bun/serve.ts'
export {
  apiClient,
  type CliResult,
  cliStaffToken,
  createProcessTracker,
  killHard,
  type ProcessTracker,
  type Standalone,
  type TestAgent,
  type TestAgentOptions,
  tokenPattern,
} from './host-process.ts'
export { removeNodeLeftovers } from './node-leftovers.ts'
export {
  filesOnlyNode,
  nodeWithPlayedAgent,
  type PlayedFailure,
  playAgent,
  wordpressNode,
} from './played-agent.ts'
export { endServingPanel, type ServingPanelEnd } from './serving-panel-end.ts'
export { startSlowPost } from './slow-post.ts'
export { storeRowsText, storeText } from './store-text.ts'
export { temporaryDataDir } from './temporary-data-dir.ts'
export {
  type CertificateOptions,
  encryptKey,
  type ForeignKey,
  type Hierarchy,
  type KeySpec,
  keyPemOf,
  type Made,
  makeCertificate,
  makeHierarchy,
  makeKeys,
  openssl,
  opensslFacts,
  opensslKey,
} from './test-certificates.ts'
export { createTestPanel, type TestPanelOptions } from './test-panel.ts'
export { presentedFingerprint } from './tls-probe.ts'
export { startWordPressPanel, type WordPressPanel } from './wordpress-panel.ts'
