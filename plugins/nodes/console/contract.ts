// The nodes plugin's console contract: what other plugins' console pages may use of its pages (a node by name, the
// choice of a node for platform staff).

export { NodeField } from './node-field.tsx'
export { NodeName } from './node-name.tsx'
