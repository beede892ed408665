// fleet-git's own folder, the one holding templates/ and dist/. This module sits
// one level below it in every form fleet-git runs in: src/package-root.ts (tests),
// dist/package-root.js (the library) and dist/cli-main.cjs (the command, bundled
// into one CommonJS file, where the build defines import.meta.dirname as
// __dirname). Not for the hook client, which is built without that.
import { join } from 'node:path';

export const PACKAGE_ROOT = join(import.meta.dirname, '..');
