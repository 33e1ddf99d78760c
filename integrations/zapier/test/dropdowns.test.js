'use strict';

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');

const App = require('../index');
const todo = require('../lib/todo');
const { serveSuite, ADMIN_TOKEN } = require('./harness');

const appTester = zapier.createAppTester(App);

describe('dropdowns and dynamic fields', () => {
  const suite = serveSuite();
  const owner = () => suite.authData;
  const admin = () => suite.as(ADMIN_TOKEN);

  it('lists the accounts the connection can see', async () => {
    const mine = await appTester(App.triggers.account_list.operation.perform, { authData: owner(), meta: { page: 0 } });
    assert.deepEqual(
      mine.map((a) => [a.id, a.name]),
      [['1001', 'Acme Plumbing (1001)']],
    );
    const all = await appTester(App.triggers.account_list.operation.perform, { authData: admin(), meta: { page: 0 } });
    assert.deepEqual(
      all.map((a) => a.id),
      ['1001', '1002'],
    );
    const past = await appTester(App.triggers.account_list.operation.perform, { authData: admin(), meta: { page: 1 } });
    assert.deepEqual(past, [], 'a page past the end is empty, which ends the dropdown');
  });

  it('lists the SMS-enabled numbers of the chosen account', async () => {
    const list = (authData, inputData) =>
      appTester(App.triggers.sms_number_list.operation.perform, { authData, inputData });
    assert.deepEqual(
      (await list(owner(), { account_number: '1001' })).map((n) => n.id),
      ['+15550101001'],
    );
    assert.deepEqual(
      (await list(admin(), { account_number: '1002' })).map((n) => n.id),
      ['+15550101002'],
    );
    assert.deepEqual(
      (await list(admin(), {})).map((n) => n.id),
      ['+15550101001', '+15550101002'],
    );
    assert.deepEqual(await list(owner(), { account_number: '1002' }), [], 'not another account');
  });

  it('lists the sending domains, and names them in the From Email help', async () => {
    const domains = await appTester(App.triggers.sending_domain_list.operation.perform, {
      authData: admin(),
      inputData: { account_number: '1002' },
    });
    assert.deepEqual(
      domains.map((d) => d.id),
      ['birch.example'],
    );
    const fromEmailField = App.creates.email_todo.operation.inputFields[1];
    const [field] = await appTester(fromEmailField, { authData: owner(), inputData: { account_number: '1001' } });
    assert.equal(field.key, 'from_email');
    assert.match(field.helpText, /acme\.example/);
  });

  it('shows the schedule inputs the chosen schedule uses', () => {
    const keys = (schedule, frequency) =>
      todo.scheduleFields(null, { inputData: { schedule, frequency } }).map((f) => f.key);
    assert.deepEqual(keys('immediately'), []);
    assert.deepEqual(keys('today'), ['times']);
    assert.deepEqual(keys('recurring', 'weekly'), ['frequency', 'interval', 'weekdays', 'month_days', 'times']);
  });

  it('builds the API schedule objects', () => {
    assert.deepEqual(todo.buildSchedule({}), { rule: 'immediately' });
    assert.deepEqual(todo.buildSchedule({ schedule: 'today', times: '09:30, 17:00' }), {
      rule: 'today',
      times: ['09:30', '17:00'],
    });
    assert.deepEqual(
      todo.buildSchedule({ schedule: 'recurring', frequency: 'daily', interval: 2, times: ['08:00'], weekdays: ['monday'] }),
      { frequency: 'daily', interval: 2, times: ['08:00'] },
    );
  });
});
