// Test users: one password for all of them, so any user a test makes can also sign in.

import { createUser, type NewUser, type User } from '../identity/users.ts'
import type { Db } from '../store/store.ts'

/** The password of every test user, the test panel's own staff user included. */
export const testPassword = 'correct horse battery'

/** Makes a user with {@link testPassword}: `staffRole: null` for a plain user, or platform or brand staff. */
export function createTestUser(db: Db, user: Omit<NewUser, 'password'>): Promise<User> {
  return createUser(db, { ...user, password: testPassword })
}
