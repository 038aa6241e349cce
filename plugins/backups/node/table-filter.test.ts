import { describe, expect, test } from 'bun:test'
import { drain, tablesOfDump } from './table-filter.ts'

const dump = `-- MariaDB dump 10.19
/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;

--
-- Table structure for table \`wp_options\`
--

DROP TABLE IF EXISTS \`wp_options\`;
CREATE TABLE \`wp_options\` (id int);

--
-- Dumping data for table \`wp_options\`
--

INSERT INTO \`wp_options\` VALUES (1),(2);

--
-- Table structure for table \`wp_posts\`
--

DROP TABLE IF EXISTS \`wp_posts\`;
CREATE TABLE \`wp_posts\` (id int);

--
-- Dumping data for table \`wp_posts\`
--

INSERT INTO \`wp_posts\` VALUES (7);

--
-- Dumping routines for database 'wp'
--
CREATE PROCEDURE p() SELECT 1;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
-- Dump completed on 2026-11-29 17:00:00
`

/** The dump as a stream cut into chunks of `size` bytes, so lines span chunks. */
function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.slice(at, at + size))
      at += size
    },
  })
}

describe('a dump narrowed to some tables', () => {
  for (const size of [1, 7, 4096])
    test(`keeps the header, the listed tables' sections and the trailer (chunks of ${size})`, async () => {
      const seen = new Set<string>()
      const kept = await new Response(tablesOfDump(streamOf(dump, size), new Set(['wp_posts']), seen)).text()
      expect(kept).toContain('FOREIGN_KEY_CHECKS=0')
      expect(kept).toContain('DROP TABLE IF EXISTS `wp_posts`;')
      expect(kept).toContain('INSERT INTO `wp_posts` VALUES (7);')
      expect(kept).not.toContain('wp_options')
      expect(kept).not.toContain('CREATE PROCEDURE')
      expect(kept).toContain('SET TIME_ZONE=@OLD_TIME_ZONE')
      expect(kept.endsWith('-- Dump completed on 2026-11-29 17:00:00\n')).toBe(true)
      expect([...seen].sort()).toEqual(['wp_options', 'wp_posts'])
    })

  test('a first pass with nothing kept finds the tables', async () => {
    const seen = new Set<string>()
    await drain(tablesOfDump(streamOf(dump, 13), new Set(), seen))
    expect(seen).toEqual(new Set(['wp_options', 'wp_posts']))
  })
})
