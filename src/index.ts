// The library entry of the package.
export { CopilotAdapter } from './copilot/adapter.js';
