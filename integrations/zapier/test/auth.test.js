'use strict';

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');

const App = require('../index');
const { serveSuite, OWNER_TOKEN, ADMIN_TOKEN, appError } = require('./harness');

const appTester = zapier.createAppTester(App);

describe('authentication', () => {
  const suite = serveSuite();

  it('passes the test with a valid token', async () => {
    const result = await appTester(App.authentication.test, {
      authData: suite.authData,
    });
    assert.ok(Array.isArray(result.data), 'the test answers GET /api/v2/messages/recents');
  });

  it('labels the connection with the user email', async () => {
    for (const [token, email] of [
      [OWNER_TOKEN, 'owner@acme.example'],
      [ADMIN_TOKEN, 'admin@answerdesk.example'],
    ]) {
      const label = await appTester(App.authentication.connectionLabel, {
        authData: { base_url: `${suite.server.url}/`, api_key: token },
      });
      assert.equal(label, email);
    }
  });

  for (const [name, token] of [
    ['an unknown token', 'ak_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a malformed token', 'not-a-token'],
  ]) {
    it(`fails the test with ${name}`, async () => {
      await assert.rejects(
        appTester(App.authentication.test, { authData: suite.as(token) }),
        (err) => {
          const e = appError(err);
          assert.equal(e.status, 401);
          assert.match(e.message, /API key was refused/);
          return true;
        },
      );
    });
  }

  it('fails the test once the token is revoked', async () => {
    const token = suite.server.cli('token', 'create', '--user', 'owner@acme.example', '--name', 'zapier test').trim();
    const authData = suite.as(token);
    await appTester(App.authentication.test, { authData });
    const row = suite.server
      .cli('token', 'list', '--user', 'owner@acme.example')
      .split('\n')
      .find((line) => line.includes('zapier test'));
    assert.ok(row, 'token list shows the new token');
    suite.server.cli('token', 'revoke', row.trim().split(/\s+/)[0]);
    await assert.rejects(appTester(App.authentication.test, { authData }), (err) => appError(err).status === 401);
  });

  it('asks for the server address when there is none', async () => {
    const saved = process.env.ANSWERDESK_BASE_URL;
    delete process.env.ANSWERDESK_BASE_URL;
    try {
      await assert.rejects(appTester(App.authentication.test, { authData: { api_key: OWNER_TOKEN } }), /base_url/);
    } finally {
      if (saved !== undefined) {
        process.env.ANSWERDESK_BASE_URL = saved;
      }
    }
  });

  it('uses ANSWERDESK_BASE_URL when the connection has no address', async () => {
    const saved = process.env.ANSWERDESK_BASE_URL;
    process.env.ANSWERDESK_BASE_URL = suite.server.url;
    try {
      const result = await appTester(App.authentication.test, { authData: { api_key: OWNER_TOKEN } });
      assert.ok(Array.isArray(result.data));
    } finally {
      if (saved === undefined) {
        delete process.env.ANSWERDESK_BASE_URL;
      } else {
        process.env.ANSWERDESK_BASE_URL = saved;
      }
    }
  });
});
