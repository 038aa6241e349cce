// What the backups service tells of itself with the node's capabilities: restic's version, and nothing missing on a
// node where `node setup` installed its packages (restic, rsync, the dump clients, ssh).

import { describe, expect, test } from 'bun:test'
import backupsNodeModule from './index.ts'
import { describeTools, missingTools } from './tools.ts'

describe('the backups service’s tools', () => {
  test('restic’s version is told, and nothing is missing once its packages are installed', async () => {
    expect(await describeTools()).toEqual({ restic: expect.stringMatching(/^\d+\.\d+\.\d+$/) })
    expect(missingTools()).toEqual([])
    expect(backupsNodeModule.packages).toEqual(
      expect.arrayContaining(['restic', 'rsync', 'openssh-client', 'mariadb-client', 'postgresql-client']),
    )
  })
})
