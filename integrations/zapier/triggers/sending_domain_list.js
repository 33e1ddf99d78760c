'use strict';

const { getAll } = require('../lib/api');

// Hidden trigger listing the authenticated email-sending domains of the chosen account (or of
// every visible account): an email To-Do's From Email must be an address on one of them.
const perform = async (z, bundle) => {
  const chosen = bundle.inputData && bundle.inputData.account_number;
  const accounts = await getAll(z, '/api/v2/accounts', { pageSize: 200 });
  const domains = [];
  for (const a of accounts) {
    if (chosen && a.number !== String(chosen)) {
      continue;
    }
    for (const d of a.sending_domains) {
      domains.push({ id: d, name: `${d} (${a.name}, ${a.number})`, account_number: a.number });
    }
  }
  return domains;
};

module.exports = {
  key: 'sending_domain_list',
  noun: 'Sending Domain',
  display: {
    label: 'List Sending Domains',
    description: 'Lists the authenticated email-sending domains of an answerdesk account.',
    hidden: true,
  },
  operation: {
    perform,
    sample: { id: 'acme.example', name: 'acme.example (Acme Plumbing, 1001)', account_number: '1001' },
  },
};
