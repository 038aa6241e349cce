// The error a panel refuses to start with when its plugins do not fit together.

/** Why a panel refused to start; the message names every plugin involved. */
export class PluginResolutionError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'PluginResolutionError'
  }
}
