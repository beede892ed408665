// fleet-git's own folder, the one holding templates/ and dist/. This module sits
// one level below it in every form fleet-git runs in: src/package-root.ts (tests),
// dist/package-root.js (the library) and dist/cli.js (the command, bundled into
// one file). Not for the hook client: a CommonJS bundle has no import.meta.
import { join } from 'node:path';

export const PACKAGE_ROOT = join(import.meta.dirname, '..');
