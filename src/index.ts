// The library entry of the package.
export { CopilotAdapter } from './core/adapter.js';
