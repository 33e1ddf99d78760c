'use strict';

const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');

const App = require('../index');
const { FIELDS } = require('../lib/message');
const { startServer, startHookReceiver, OWNER_TOKEN, appError, sleep } = require('./harness');

const appTester = zapier.createAppTester(App);
const trigger = App.triggers.new_message.operation;

describe('New Message trigger', () => {
  let server;
  let hooks;
  let authData;
  let subscription;
  const targetUrl = () => `${hooks.base}/hooks/catch/123/abc/`;

  before(async () => {
    [server, hooks] = await Promise.all([startServer(), startHookReceiver()]);
    authData = { base_url: server.url, api_key: OWNER_TOKEN };
  });
  after(async () => {
    await Promise.all([server.stop(), hooks.close()]);
  });

  it('subscribes with an on-call contact that posts to the hook URL', async () => {
    subscription = await appTester(trigger.performSubscribe, {
      authData,
      targetUrl: targetUrl(),
      inputData: { account_number: '1001' },
      meta: { zap: { id: 987 } },
    });
    assert.equal(subscription.account_number, '1001');
    assert.equal(subscription.name, 'Zapier (Zap 987)');
    assert.equal(subscription.escalation_level, 1);
    const method = subscription.delivery_methods[0];
    assert.equal(method.url, targetUrl());
    assert.equal(method.payload_type, 'JSON');
    // The message's id and uuid, and the account's number and name: within the 50 data
    // fields a method may have, and no message content through the hook.
    const fields = Object.fromEntries(method.data.map((d) => [d.field, d.value]));
    assert.deepEqual(fields, {
      id: '{{message.id}}',
      uuid: '{{message.uuid}}',
      account_number: '{{account.number}}',
      account_name: '{{account.name}}',
    });

    const list = await server.api('GET', '/api/v2/on-call-contacts?page_size=100');
    assert.ok(list.body.data.some((c) => c.id === subscription.id), 'the contact is listed');
  });

  let hookMessage;
  let created;
  it('delivers a new message to the hook, and perform returns it as the API shows it', async () => {
    const answers = { 'Callback number': '+15555550142', 'Reason for call': 'Leaking water heater' };
    const r = await server.api('POST', '/api/v2/messages', {
      message: {
        content: 'Dana Ruiz called about a leaking water heater.',
        origin: 'AI_CALL',
        caller_id: '+15555550142',
        first_name: 'Dana',
        is_emergency: true,
        account_number: '1001',
        answers,
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    created = r.body.data;

    const hit = await hooks.waitFor((h) => h.body && h.body.id === String(created.id));
    assert.ok(hit, `no delivery of message ${created.id} reached the hook:\n${server.logTail()}`);
    assert.equal(hit.method, 'POST');
    assert.equal(hit.path, '/hooks/catch/123/abc/');
    assert.match(hit.headers['content-type'], /^application\/json/);
    assert.ok(hit.headers['idempotency-key'], 'deliveries carry an Idempotency-Key');

    [hookMessage] = await appTester(trigger.perform, { authData, cleanedRequest: hit.body });
    assert.equal(hookMessage.id, created.id);
    assert.equal(hookMessage.uuid, created.uuid);
    assert.equal(hookMessage.content, 'Dana Ruiz called about a leaking water heater.');
    assert.equal(hookMessage.origin, 'AI_CALL');
    assert.equal(hookMessage.first_name, 'Dana');
    assert.equal(hookMessage.last_name, null);
    assert.equal(hookMessage.is_emergency, true);
    assert.equal(hookMessage.read, false);
    assert.equal(hookMessage.account_id, created.account_id);
    assert.equal(hookMessage.created_at, created.created_at);
    assert.deepEqual(hookMessage.answers, answers);
    assert.equal(hookMessage.account_number, '1001');
    assert.equal(hookMessage.account_name, 'Acme Plumbing');

    // The same keys and the same value types as the API's message: what a Zap maps from the
    // sample is what arrives. A field the API adds fails here until lib/message.js has it.
    const fromAPI = (await server.api('GET', `/api/v2/messages/${created.id}`)).body.data;
    assert.deepEqual(Object.keys(FIELDS).sort(), Object.keys(fromAPI).sort());
    for (const [k, v] of Object.entries(fromAPI)) {
      if (['status', 'delivered_at', 'delivered_to', 'updated_at', 'next_escalation_at', 'escalation_level_id'].includes(k)) {
        continue; // delivery may change these between perform's read and this one
      }
      assert.deepEqual(hookMessage[k], v, `field ${k}`);
    }
  });

  it('lists recent messages of the account in the same shape for sample data', async () => {
    const list = await appTester(trigger.performList, { authData, inputData: { account_number: '1001' } });
    assert.ok(list.length > 0 && list.length <= 10);
    assert.equal(list[0].id, created.id, 'newest first');
    for (const m of list) {
      assert.deepEqual(Object.keys(m).sort(), Object.keys(hookMessage).sort());
      assert.equal(m.account_number, '1001');
      assert.equal(m.account_name, 'Acme Plumbing');
    }
    assert.deepEqual(Object.keys(trigger.sample).sort(), Object.keys(hookMessage).sort(), 'the static sample too');
  });

  it('refuses to subscribe to an account the connection cannot see, naming the field', async () => {
    await assert.rejects(
      appTester(trigger.performSubscribe, { authData, targetUrl: targetUrl(), inputData: { account_number: '1002' } }),
      (err) => {
        const e = appError(err);
        assert.equal(e.status, 422);
        assert.match(e.message, /account_number/);
        return true;
      },
    );
    await assert.rejects(
      appTester(trigger.performList, { authData, inputData: { account_number: '1002' } }),
      /account_number/,
    );
  });

  it('unsubscribes by deleting the contact; later messages are not delivered', async () => {
    const deleted = await appTester(trigger.performUnsubscribe, { authData, subscribeData: subscription });
    assert.equal(deleted.id, subscription.id);
    const list = await server.api('GET', '/api/v2/on-call-contacts?page_size=100');
    assert.ok(!list.body.data.some((c) => c.id === subscription.id), 'the contact is gone');

    const before = hooks.received.length;
    const r = await server.api('POST', '/api/v2/messages', { message: { content: 'After unsubscribe', account_number: '1001' } });
    assert.equal(r.status, 200);
    await sleep(1500);
    assert.equal(hooks.received.length, before, 'nothing reaches the hook after unsubscribing');

    // Unsubscribing again (the contact was deleted in answerdesk already) succeeds.
    const again = await appTester(trigger.performUnsubscribe, { authData, subscribeData: subscription });
    assert.equal(again.id, subscription.id);
  });
});
