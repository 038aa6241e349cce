// A request held in flight by the test: what a graceful stop must let finish.

import { once } from 'node:events'
import { connect } from 'node:net'

/**
 * A POST written by hand over TCP: headers at once (with `Expect: 100-continue`), the body when the test says, so a
 * test holds a request in flight for as long as it likes (a server stopping meanwhile must finish it).
 */
export async function startSlowPost(base: string, path: string, token: string, body: string) {
  const url = new URL(base)
  const socket = connect(Number(url.port), url.hostname)
  await once(socket, 'connect')
  socket.setEncoding('utf8')
  let received = ''
  let firstStatus: (status: number) => void = () => {}
  const interim = new Promise<number>((resolve) => {
    firstStatus = resolve
  })
  socket.on('data', (chunk: string) => {
    received += chunk
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(received)
    if (status) firstStatus(Number(status[1]))
  })
  const closed = new Promise<void>((resolve, reject) => {
    socket.once('close', () => resolve())
    socket.once('error', reject)
  })
  socket.write(
    [
      `POST ${path} HTTP/1.1`,
      `Host: ${url.host}`,
      `Authorization: Bearer ${token}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Expect: 100-continue',
      'Connection: close',
      '',
      '',
    ].join('\r\n'),
  )
  return {
    /** The status of the first answer: 100 once the server has taken the request in. */
    interim,
    /** Sends the body and returns the final response. */
    async finish(): Promise<{ status: number; body: string }> {
      socket.write(body)
      await closed
      const final = received.replace(/^HTTP\/1\.1 100 [^\r]*\r\n\r\n/, '')
      const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(final)?.[1] ?? Number.NaN)
      return { status, body: final.slice(final.indexOf('\r\n\r\n') + 4) }
    },
  }
}
