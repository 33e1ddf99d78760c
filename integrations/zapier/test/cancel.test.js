'use strict';

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const zapier = require('zapier-platform-core');

const App = require('../index');
const { serveSuite, appError } = require('./harness');

const appTester = zapier.createAppTester(App);

describe('Cancel To-Do action', () => {
  const suite = serveSuite();
  const cancel = (id) => appTester(App.creates.cancel_todo.operation.perform, { authData: suite.authData, inputData: { id } });
  const dropdown = () => appTester(App.triggers.to_do_list.operation.perform, { authData: suite.authData, meta: { page: 0 } });

  it('cancels a To-Do a Create step made, for good and idempotently', async () => {
    const td = await appTester(App.creates.call_todo.operation.perform, {
      authData: suite.authData,
      inputData: {
        account_number: '1001',
        instructions: 'Weekly check-in',
        contact: '+15555550188',
        schedule: 'recurring',
        frequency: 'weekly',
        weekdays: ['monday'],
        times: ['09:00'],
      },
    });
    assert.ok((await dropdown()).some((t) => t.id === td.id), 'the dropdown offers the new To-Do');

    const got = await cancel(String(td.id));
    assert.equal(got.id, td.id);
    assert.equal(got.state, 'cancelled');
    assert.equal(got.schedule.next_occurrence, null);
    assert.equal((await cancel(td.id)).state, 'cancelled', 'cancelling again answers the same');
    assert.ok(!(await dropdown()).some((t) => t.id === td.id), 'a cancelled To-Do leaves the dropdown');
  });

  it('names the input when the To-Do does not exist or is not one', async () => {
    await assert.rejects(cancel('999999'), (err) => {
      const e = appError(err);
      assert.equal(e.status, 404, err.message);
      return true;
    });
    await assert.rejects(cancel('abc'), (err) => {
      assert.match(err.message, /To-Do \(id\)/);
      return true;
    });
  });
});
