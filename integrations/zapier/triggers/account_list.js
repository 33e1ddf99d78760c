'use strict';

// Hidden trigger behind every Account dropdown: the accounts this connection can see
// (GET /api/v2/accounts), one page of 100 per dropdown page.
const perform = async (z, bundle) => {
  const page = ((bundle.meta && bundle.meta.page) || 0) + 1;
  const response = await z.request({ url: '/api/v2/accounts', params: { page, page_size: 100 } });
  return response.data.data.map((a) => ({
    id: a.number,
    name: `${a.name} (${a.number})`,
    number: a.number,
    account_id: a.id,
    time_zone: a.time_zone,
    sms_numbers: a.sms_numbers,
    sending_domains: a.sending_domains,
  }));
};

module.exports = {
  key: 'account_list',
  noun: 'Account',
  display: {
    label: 'List Accounts',
    description: 'Lists the answerdesk accounts of the connection, for dropdowns.',
    hidden: true,
  },
  operation: {
    canPaginate: true,
    perform,
    sample: {
      id: '1001',
      name: 'Acme Plumbing (1001)',
      number: '1001',
      account_id: 1,
      time_zone: 'America/New_York',
      sms_numbers: ['+15550101001'],
      sending_domains: ['acme.example'],
    },
  },
};
