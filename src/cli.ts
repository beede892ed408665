#!/usr/bin/env node
// The fleet-git command. The program itself is src/main.ts, bundled by the
// build into one CommonJS file, dist/cli-main.cjs; this starts it from the code
// cache the build saved beside it (see code-cache.ts): measured some 20 ms
// less per run than compiling the bundle afresh.
import { join } from 'node:path';
import { WRITE_CACHE_ENV, runBundle } from './code-cache.js';

const dir = import.meta.dirname;
runBundle(join(dir, 'cli-main.cjs'), join(dir, 'cli-main.cache'), process.env[WRITE_CACHE_ENV] === '1');
