'use strict';

// The test harness: a real answerdesk binary serving the demo data on a loopback port, and a
// local receiver standing in for Zapier's hook URLs. Each test file starts its own server on
// a fresh database, so files never see each other's data.

const { before, after } = require('node:test');
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..', '..');

// The fixed demo tokens (the demo data comes from a fixed seed).
const OWNER_TOKEN = 'ak_Si3Jduvav3mLclSGvTk_aQWmDDXmGX13-sK19IJTIIY'; // owner@acme.example, account 1001
const ADMIN_TOKEN = 'ak_3EarNFicUnKnS0zy972B7ZRnbBOU6WgFN5ToAphPZUo'; // admin@answerdesk.example

// binary returns the answerdesk binary: ANSWERDESK_BIN (make test builds it), else a build of
// this checkout (test/run.js does that once for all files).
const binary = () => {
  if (process.env.ANSWERDESK_BIN) {
    return process.env.ANSWERDESK_BIN;
  }
  const out = path.join(os.tmpdir(), `answerdesk-zapier-test-${process.pid}`, 'answerdesk');
  execFileSync('go', ['build', '-o', out, './cmd/answerdesk'], { cwd: REPO, stdio: 'inherit' });
  process.env.ANSWERDESK_BIN = out;
  return out;
};

const freePort = () =>
  new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// startServer runs `answerdesk serve --demo` on a fresh database and waits for /readyz.
const startServer = async () => {
  const bin = binary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'answerdesk-zapier-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logPath = path.join(dir, 'server.log');
  const log = fs.openSync(logPath, 'w');
  const child = spawn(
    bin,
    ['serve', '--demo', '--db', path.join(dir, 'a.db'), '--addr', `127.0.0.1:${port}`, '--base-url', url, '--dispatch-allow-private'],
    { stdio: ['ignore', log, log] },
  );
  let exited = null;
  child.on('exit', (code, signal) => {
    exited = { code, signal };
  });
  const logTail = () => fs.readFileSync(logPath, 'utf8').split('\n').slice(-40).join('\n');
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) {
      throw new Error(`answerdesk exited before it was ready (${JSON.stringify(exited)}):\n${logTail()}`);
    }
    try {
      const r = await fetch(`${url}/readyz`);
      if (r.status === 200) {
        break;
      }
    } catch (err) {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`answerdesk was not ready within 60 s:\n${logTail()}`);
    }
    await sleep(100);
  }
  const stop = async () => {
    if (exited) {
      return;
    }
    const done = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await done;
    clearTimeout(timer);
    fs.closeSync(log);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  // api calls the customer API directly, as a test's own client (not through the app).
  const api = async (method, p, body, token = OWNER_TOKEN) => {
    const r = await fetch(url + p, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        Accept: 'application/json',
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  // cli runs an answerdesk subcommand against the server's database (SQLite in WAL mode
  // takes a second process) and returns its standard output.
  const cli = (command, sub, ...args) =>
    execFileSync(bin, [command, sub, '--db', path.join(dir, 'a.db'), ...args], { encoding: 'utf8' });
  return { url, port, stop, api, cli, logTail };
};

// startHookReceiver stands in for Zapier's hook endpoint: it records every POST and answers
// 200, like hooks.zapier.com does.
const startHookReceiver = async () => {
  const received = [];
  const waiters = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body = null;
      try {
        body = JSON.parse(raw);
      } catch (err) {
        body = null;
      }
      const hit = { method: req.method, path: req.url, headers: req.headers, raw, body };
      received.push(hit);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"status":"success"}');
      for (const w of waiters.splice(0)) {
        w();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  // waitFor resolves with the first request matching pred, or null after ms.
  const waitFor = async (pred, ms = 15_000) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = received.find(pred);
      if (hit) {
        return hit;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        return null;
      }
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  };
  const close = () => new Promise((resolve) => server.close(resolve));
  return { base, received, waitFor, close };
};

// appError reads what a Zapier app error carries: z.errors.Error's message is a JSON
// {message, code, status}.
const appError = (err) => {
  try {
    return JSON.parse(err.message);
  } catch (e) {
    return { message: err.message };
  }
};

// serveSuite starts a server before the tests of the describe block it is called in and
// stops it after them. Its server, and authData (the owner's connection), are set once the
// block runs; as(token) is the connection of another token.
const serveSuite = () => {
  const suite = {
    server: null,
    authData: null,
    as: (token) => ({ base_url: suite.server.url, api_key: token }),
  };
  before(async () => {
    suite.server = await startServer();
    suite.authData = suite.as(OWNER_TOKEN);
  });
  after(async () => {
    await suite.server.stop();
  });
  return suite;
};

module.exports = { REPO, OWNER_TOKEN, ADMIN_TOKEN, binary, startServer, serveSuite, startHookReceiver, appError, sleep };
