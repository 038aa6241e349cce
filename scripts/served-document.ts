// The panel a client of the API meets: the standard installation, or the one a PLINTH_CONFIG module makes (its
// plugins beside or instead of the standard ones), for what is generated from its OpenAPI document.

import { installationPlugins } from '../hosts/plinth-config.ts'
import { settingsFromEnv } from '../hosts/settings.ts'
import { createTestPanel, type TestPanel, temporaryDataDir } from '../hosts/testing/index.ts'

/** A panel of the standard plugins, or of the installation `configPath` (a PLINTH_CONFIG module) makes. */
export async function installationPanel(configPath?: string): Promise<TestPanel['panel']> {
  if (configPath === undefined) return (await createTestPanel()).panel
  const settings = settingsFromEnv({ DATA_DIR: temporaryDataDir(), PLINTH_CONFIG: configPath })
  const { plugins, overrides } = await installationPlugins(settings)
  return (await createTestPanel({ standard: false, plugins, overrides: overrides ?? [] })).panel
}

/** The OpenAPI document a standard panel serves at `/api/docs`, as a client fetches it. */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const panel = await installationPanel()
  try {
    return await documentOf(panel)
  } finally {
    await panel.close()
  }
}

/** The document `panel` serves at `/api/docs`, as a client fetches it. */
export async function documentOf(panel: TestPanel['panel']): Promise<Record<string, unknown>> {
  const answer = await panel.handle(new Request('http://panel.test/api/docs/openapi.json'))
  return (await answer.json()) as Record<string, unknown>
}
