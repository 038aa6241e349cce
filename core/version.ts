// The kernel's version: the API document's `info.version` unless a host says otherwise, the kernel areas' version
// in `/capabilities`, and `plinth_build_info`. `core/version.test.ts` keeps it equal to package.json's.

export const kernelVersion = '0.2.0'
