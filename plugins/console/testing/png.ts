// A small PNG made from nothing but its colour, for a brand's logo in the end-to-end tests: no image files in the
// repository, and the bytes are a real PNG (signature, IHDR, IDAT, IEND) the API's logo check accepts.

import { deflateSync } from 'node:zlib'

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, data.length)
  out.set(new TextEncoder().encode(type), 4)
  out.set(data, 8)
  // The CRC covers the type and the data.
  view.setUint32(8 + data.length, Bun.hash.crc32(out.subarray(4, 8 + data.length)))
  return out
}

/**
 * A `size`×`size` PNG of one colour with a lighter square in its middle (so a screenshot shows it is an image).
 * @example solidPng('#7c3aed', 32)
 */
export function solidPng(hex: string, size = 32): Uint8Array {
  const value = Number.parseInt(hex.replace('#', ''), 16)
  const colour = [(value >> 16) & 255, (value >> 8) & 255, value & 255]
  const header = new Uint8Array(13)
  const view = new DataView(header.buffer)
  view.setUint32(0, size)
  view.setUint32(4, size)
  // 8 bits a channel, colour type 2 (RGB), deflate, no filter method variants, no interlace.
  header.set([8, 2, 0, 0, 0], 8)
  const rows = new Uint8Array(size * (1 + 3 * size))
  for (let y = 0; y < size; y++) {
    const start = y * (1 + 3 * size)
    // Each row begins with its filter type: 0, none.
    rows[start] = 0
    for (let x = 0; x < size; x++) {
      const inner = x >= size / 4 && x < (3 * size) / 4 && y >= size / 4 && y < (3 * size) / 4
      for (let c = 0; c < 3; c++)
        rows[start + 1 + 3 * x + c] = inner
          ? 255 - Math.round((255 - (colour[c] ?? 0)) / 3)
          : (colour[c] ?? 0)
    }
  }
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', new Uint8Array()),
  ]
  const png = new Uint8Array(parts.reduce((total, part) => total + part.length, 0))
  let offset = 0
  for (const part of parts) {
    png.set(part, offset)
    offset += part.length
  }
  return png
}
