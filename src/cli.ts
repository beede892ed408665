#!/usr/bin/env node
// The fleet-git command (bundled into dist/cli.cjs). The program itself is
// src/main.ts, bundled by the build into one CommonJS file, dist/cli-main.cjs;
// this starts it from V8's code cache in the data folder, which the first run
// there saves (see code-cache.ts and the README's measured figures).
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CACHE_FILE, runBundle } from './code-cache.js';
import { userPaths } from './paths.js';

const env = process.env;
runBundle(join(import.meta.dirname, 'cli-main.cjs'), join(userPaths(env, env.HOME || homedir()).dataDir, CACHE_FILE));
