// A throwaway home for a benchmark: HOME, the global git config (a user, branch
// main) and the XDG and Copilot folders under it, so that no benchmark reads or
// writes the user's own. `extra` is added to the environment as it is.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function homeEnv(home, extra = {}) {
  mkdirSync(home, { recursive: true });
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    GIT_CONFIG_GLOBAL: join(home, '.gitconfig'),
    GIT_CONFIG_NOSYSTEM: '1',
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    COPILOT_HOME: join(home, '.copilot'),
    ...extra,
  };
  writeFileSync(env.GIT_CONFIG_GLOBAL, '[user]\n\tname = Bench\n\temail = bench@example.invalid\n[init]\n\tdefaultBranch = main\n');
  return env;
}
