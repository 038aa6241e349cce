// The nodes plugin's console contract: what other plugins' console pages may use of its pages (a node by name).

export { NodeName } from './node-name.tsx'
