// Whether the quick tier's temporary folders can go in memory: /dev/shm, where it is a tmpfs (Linux),
// for scripts/test.mjs and the test of it (test/test-runner.test.ts).
import { statfsSync } from 'node:fs';

export const MEMORY_FOLDER = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;

/** True when MEMORY_FOLDER is a tmpfs here; false where there is none (macOS) or it cannot be asked. */
export function memoryFolderHere() {
  try {
    return statfsSync(MEMORY_FOLDER).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}
