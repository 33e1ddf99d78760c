'use strict';

const { getAll } = require('../lib/api');

// Hidden trigger behind the From dropdown of Create SMS To-Do: the SMS-enabled numbers of the
// chosen account, or of every visible account while none is chosen.
const perform = async (z, bundle) => {
  const chosen = bundle.inputData && bundle.inputData.account_number;
  const accounts = await getAll(z, '/api/v2/accounts', { pageSize: 200 });
  const numbers = [];
  for (const a of accounts) {
    if (chosen && a.number !== String(chosen)) {
      continue;
    }
    for (const n of a.sms_numbers) {
      numbers.push({ id: n, name: `${n} (${a.name}, ${a.number})`, account_number: a.number });
    }
  }
  return numbers;
};

module.exports = {
  key: 'sms_number_list',
  noun: 'SMS Number',
  display: {
    label: 'List SMS Numbers',
    description: 'Lists the SMS-enabled numbers of an answerdesk account, for dropdowns.',
    hidden: true,
  },
  operation: {
    perform,
    sample: { id: '+15550101001', name: '+15550101001 (Acme Plumbing, 1001)', account_number: '1001' },
  },
};
