// The helper thread of a large scan (see survey-threads.ts): reads the
// repositories it is sent and answers with their rows as JSON.
import { parentPort, workerData } from 'node:worker_threads';
import { FolderIndex } from '../copilot/trust.js';
import { ConfigReader } from '../git/config.js';
import { assessUnit, rowJson, type Unit } from './bulk.js';
import type { RunContext } from './context.js';
import type { HelperData } from './survey-threads.js';
import type { CopilotView } from './user-hooks.js';

const data = workerData as HelperData;
const ctx: RunContext = { ...data.ctx, config: new ConfigReader(data.ctx.env) };
const copilot: CopilotView = { ...data.copilot, trusted: new FolderIndex(data.copilot.trusted) };
parentPort?.on('message', (units: Unit[]) => {
  parentPort?.postMessage(units.map((u) => rowJson(assessUnit(u, ctx), copilot)));
});
