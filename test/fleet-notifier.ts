// A notifier.js for fleet's hooks folder, written from what fleet-observer-protocol.md says of fleet's own (1.4.4,
// "fleet's desktop notifications"): the same two functions, the same config file and defaults, the same commands
// (`notify-send TITLE BODY` on Linux, `osascript -e 'display notification …'` on macOS) through execSync with a 5 s
// timeout, failures ignored, the title cut to 60 characters and the body to 200. fleet's package is not among the
// suite's dependencies; fleet-git runs whatever notifier.js fleet installed, through these two functions only.
export const FLEET_NOTIFIER = String.raw`'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execSync } = require('child_process');

const CONFIG = path.join(os.homedir(), '.config', 'claude-code-fleet', 'notify.json');
const DEFAULTS = { enabled: true, sound: true, events: { stop: true, notification: true } };

function loadNotifyConfig() {
  try {
    const given = JSON.parse(fs.readFileSync(CONFIG, 'utf-8'));
    return { ...DEFAULTS, ...given, events: { ...DEFAULTS.events, ...(given.events || {}) } };
  } catch {
    return { ...DEFAULTS, events: { ...DEFAULTS.events } };
  }
}

const cut = (s, n) => (!s || s.length <= n ? s || '' : s.slice(0, n - 1) + '\u2026');
const sq = (s) => "'" + String(s).replace(/'/g, "'\\''") + "'";
const dq = (s) => '"' + String(s).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';

function sendNotification({ title, body, cwd, platform, sound }) {
  try {
    const t = cut(title, 60);
    const b = cut(body, 200);
    if ((platform || process.platform) === 'darwin') {
      const sub = cwd ? ' subtitle ' + dq(path.basename(cwd)) : '';
      const script = 'display notification ' + dq(b) + ' with title ' + dq(t) + sub + (sound !== false ? ' sound name "default"' : '');
      execSync('osascript -e ' + sq(script), { stdio: 'pipe', timeout: 5000 });
    } else if ((platform || process.platform) === 'linux') {
      execSync('notify-send ' + sq(t) + ' ' + sq(b), { stdio: 'pipe', timeout: 5000 });
    }
  } catch {}
}

module.exports = { loadNotifyConfig, sendNotification };
`;
