// `npm start`: the standalone panel (settings in docs/operators.md); exits 0 after SIGTERM, 2 on a bad setting.

import { runStandardServer } from './run-server.ts'

await runStandardServer()
