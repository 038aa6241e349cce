// A plugin for this example's tests that keeps every event the outbox hands over, where webhooks would take them.

import { definePlugin, type OutboxEvent } from '../../core/index.ts'

/** A recorder plugin and the events it has received, in outbox order. */
export function eventRecorder() {
  const events: OutboxEvent[] = []
  const plugin = definePlugin({
    name: 'event-recorder',
    version: '1.0.0',
    description: 'Keeps every event the outbox hands over.',
    setup(context) {
      context.consumeEvents({ name: 'recorder', receive: async (_trx, event) => void events.push(event) })
    },
  })
  return { plugin, events }
}
