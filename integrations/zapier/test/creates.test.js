'use strict';

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');

const App = require('../index');
const { serveSuite, appError } = require('./harness');

const appTester = zapier.createAppTester(App);
const create = (key, authData, inputData) => appTester(App.creates[key].operation.perform, { authData, inputData });

// nowInNewYork is the wall-clock time of account 1001 as "HH:MM".
const nowInNewYork = () =>
  new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/New_York',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date());

// rejects422 asserts that p fails with a 422 naming field (the API's name) and label (the
// input the user sees).
const rejects422 = (p, field, label) =>
  assert.rejects(p, (err) => {
    const e = appError(err);
    assert.equal(e.status, 422, err.message);
    assert.equal(e.code, 'invalid_parameter');
    assert.ok(e.message.includes(`${label} (${field}):`), `"${e.message}" names ${label} (${field})`);
    return true;
  });

describe('Create To-Do actions', () => {
  const suite = serveSuite();

  it('creates a call To-Do for now', async () => {
    const td = await create('call_todo', suite.authData, {
      account_number: '1001',
      instructions: 'Call back about the leak under the kitchen sink',
      contact: '+15555550188',
      schedule: 'immediately',
    });
    assert.equal(td.delivery_type, 'call');
    assert.equal(td.account_number, '1001');
    assert.equal(td.instructions, 'Call back about the leak under the kitchen sink');
    assert.equal(td.schedule.rule.rule, 'immediately');
    const stored = await suite.server.api('GET', `/api/v2/to-dos/${td.id}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.data.id, td.id);
  });

  it('creates a call To-Do without a number, for a live agent, immediately by default', async () => {
    const td = await create('call_todo', suite.authData, { account_number: '1001', instructions: 'Check the voicemail box' });
    assert.equal(td.contact, null);
    assert.equal(td.schedule.rule.rule, 'immediately');
  });

  it('creates an SMS To-Do for later today', async (t) => {
    if (nowInNewYork() >= '23:58') {
      t.skip('too close to midnight in New York for a time later today');
      return;
    }
    const td = await create('sms_todo', suite.authData, {
      account_number: '1001',
      from: '+15550101001',
      contact: '+15555550123',
      message_text: 'Your plumber is 10 minutes away.',
      name: 'ETA text',
      schedule: 'today',
      times: ['23:59'],
    });
    assert.equal(td.delivery_type, 'sms');
    assert.equal(td.from, '5550101001');
    assert.equal(td.name, 'ETA text');
    assert.equal(td.schedule.rule.rule, 'today');
    assert.deepEqual(td.times, ['23:59']);
    assert.ok(td.schedule.next_occurrence);
  });

  it('creates a weekly email To-Do every other week', async () => {
    const td = await create('email_todo', suite.authData, {
      account_number: '1001',
      from_email: 'office@acme.example',
      sender_name: 'Acme Office',
      contact: 'pat@example.com',
      subject: 'Appointment confirmed',
      message_text: 'See you at 3 PM.',
      schedule: 'recurring',
      frequency: 'weekly',
      interval: '2',
      weekdays: ['thursday', 'monday'],
      times: ['09:30', '17:00'],
    });
    assert.equal(td.delivery_type, 'email');
    assert.equal(td.from_email, 'office@acme.example');
    assert.equal(td.subject, 'Appointment confirmed');
    assert.match(td.schedule.rule.rrule, /FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH/);
    assert.equal(td.schedule.rule.tz, 'America/New_York');
  });

  it('creates a monthly SMS To-Do from mapped, comma-separated values', async () => {
    const td = await create('sms_todo', suite.authData, {
      account_number: '1001',
      from: '5550101001',
      contact: '+15555550123',
      message_text: 'Monthly filter reminder',
      schedule: 'recurring',
      frequency: 'monthly',
      month_days: '1, 15',
      times: '10:00',
    });
    assert.match(td.schedule.rule.rrule, /FREQ=MONTHLY;INTERVAL=1;BYMONTHDAY=1,15/);
  });

  // Each input is one answerdesk refuses with a 422 naming field, shown as the input label.
  // skip, when set, says why the case cannot be run at this time of day.
  for (const { name, key, input, field, label, skip } of [
    {
      name: 'an SMS without a recipient',
      key: 'sms_todo',
      input: { account_number: '1001', from: '+15550101001', message_text: 'No recipient', schedule: 'immediately' },
      field: 'contact',
      label: 'To Number',
    },
    {
      name: 'a from number that cannot send SMS',
      key: 'sms_todo',
      input: { account_number: '1001', from: '+15550109999', contact: '+15555550123', message_text: 'Wrong number' },
      field: 'from',
      label: 'From Number',
    },
    {
      name: 'a sending address off the account domains',
      key: 'email_todo',
      input: { account_number: '1001', from_email: 'someone@other.example', contact: 'pat@example.com', message_text: 'Hello' },
      field: 'from_email',
      label: 'From Email',
    },
    {
      name: 'an account of someone else',
      key: 'call_todo',
      input: { account_number: '1002', instructions: 'Not my account' },
      field: 'account_number',
      label: 'Account',
    },
    {
      name: 'a time already past today',
      key: 'call_todo',
      input: { account_number: '1001', instructions: 'Too late', schedule: 'today', times: ['00:00'] },
      field: 'schedule.times',
      label: 'Times',
      skip: () => nowInNewYork() < '00:02' && 'too close to midnight in New York for a time already past',
    },
  ]) {
    it(`shows the field answerdesk refused: ${name}`, async (t) => {
      const why = skip && skip();
      if (why) {
        t.skip(why);
        return;
      }
      await rejects422(create(key, suite.authData, input), field, label);
    });
  }
});
