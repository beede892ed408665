// node --import ./scripts/ts-loader.mjs: runs the project's TypeScript from the JavaScript that
// scripts/test.mjs made of it for the run (scripts/ts-hooks.mjs). Lighter than tsx, which each of the
// runner's processes would load whole, in its two threads, to start (0.25 s of CPU against 0.08 here).
// The hooks run in the thread itself where node has registerHooks (22.15 and later; register, which
// runs them in a thread of their own, is deprecated from 26), else in their own thread.
import module from 'node:module';
import * as hooks from './ts-hooks.mjs';

if (module.registerHooks) module.registerHooks({ resolve: hooks.resolve, load: hooks.load });
else module.register('./ts-hooks.mjs', import.meta.url);
