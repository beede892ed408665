// A node:test reporter for scripts/compat.mjs: one line a test ("pass" or "FAIL", the file, the name, for a
// failure the first line of its error), suites left out, then the counts as the last line.
import { basename } from 'node:path';

export default async function* compatReporter(source) {
  const n = { tests: 0, passed: 0, failed: 0, skipped: 0 };
  for await (const { type, data } of source) {
    if ((type !== 'test:pass' && type !== 'test:fail') || data.details?.type === 'suite') continue;
    const where = data.file ? `${basename(data.file)}: ` : '';
    n.tests++;
    if (data.skip !== undefined || data.todo !== undefined) {
      n.skipped++;
      yield `skip  ${where}${data.name}${typeof data.skip === 'string' ? ` (${data.skip})` : ''}\n`;
    } else if (type === 'test:pass') {
      n.passed++;
      yield `pass  ${where}${data.name}\n`;
    } else {
      n.failed++;
      const error = data.details?.error;
      const why = String(error?.cause?.message ?? error?.message ?? 'failed').split('\n')[0];
      yield `FAIL  ${where}${data.name}: ${why}\n`;
    }
  }
  yield `${n.tests} tests, ${n.passed} passed, ${n.failed} failed, ${n.skipped} skipped\n`;
}
