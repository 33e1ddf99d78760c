'use strict';

// npm test: build answerdesk once (unless ANSWERDESK_BIN names a binary, as make test does),
// then run every test file, one at a time (each starts its own server). NODE_ENV=test is
// zapier-platform-core's test mode (without it, each call logs its memory use).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { binary } = require('./harness');

const built = !process.env.ANSWERDESK_BIN;
const bin = binary();
const files = fs
  .readdirSync(__dirname)
  .filter((f) => f.endsWith('.test.js'))
  .sort()
  .map((f) => path.join(__dirname, f));
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=1', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: process.env.NODE_ENV || 'test' },
});
if (built) {
  fs.rmSync(path.dirname(bin), { recursive: true, force: true });
}
process.exit(r.status === null ? 1 : r.status);
