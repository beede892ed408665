// A helper thread of a bulk run (see bulk-apply.ts): reads each repository of
// its share afresh, applies the action, and answers for each as it goes.
import { parentPort, workerData } from 'node:worker_threads';
import { ConfigReader } from '../../git/config.js';
import { applyAfresh, type HelperJob } from './bulk-apply.js';
import type { RunContext } from '../repo/context.js';

const job = workerData as HelperJob;
const ctx: RunContext = { ...job.ctx, config: new ConfigReader(job.ctx.env) };
for (const [i, repo] of job.share) parentPort?.postMessage([i, applyAfresh(repo, ctx, job.action, job.linkFrom, job.pick)]);
