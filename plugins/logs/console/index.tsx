import { defineConsolePages } from '../../console/kit.ts'

export default defineConsolePages({ routes: [] })
