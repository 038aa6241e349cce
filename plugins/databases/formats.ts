// The string formats of the plugin's bodies, each refused with its own code.

import { defineFormat } from '../../core/index.ts'
import { isChosenName } from './naming.ts'
import { databasesProblems } from './problems.ts'

/** A database or user name as a customer chooses it (naming.ts). */
export const ChosenName = defineFormat({
  name: 'database-name',
  check: isChosenName,
  problem: databasesProblems.invalid_database_name,
})
