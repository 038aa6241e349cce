// The standard installation with DNS zones: `PLINTH_CONFIG=examples/dns-zones/plinth.config.ts npm start`.

import { definePlinthConfig } from '../../hosts/index.ts'
import { dnsZonesPlugin } from './index.ts'

export default definePlinthConfig((standard) => [...standard, dnsZonesPlugin()])
