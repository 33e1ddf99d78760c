'use strict';

// Hidden trigger behind the To-Do dropdown of Cancel To-Do: the To-Dos of the connection
// that can still send something (states active and paused, GET /api/v2/to-dos?state=),
// newest first, one page of 100 of each per dropdown page.
const perform = async (z, bundle) => {
  const page = ((bundle.meta && bundle.meta.page) || 0) + 1;
  const out = [];
  for (const state of ['active', 'paused']) {
    const response = await z.request({ url: '/api/v2/to-dos', params: { page, page_size: 100, state } });
    for (const t of response.data.data) {
      out.push({
        id: t.id,
        name: `${t.name} (${t.delivery_type}, ${t.state}, #${t.id})`,
        state: t.state,
        account_number: t.account_number,
      });
    }
  }
  return out.sort((a, b) => b.id - a.id);
};

module.exports = {
  key: 'to_do_list',
  noun: 'To-Do',
  display: {
    label: 'List To-Dos',
    description: 'Lists the active and paused To-Dos of the connection, for dropdowns.',
    hidden: true,
  },
  operation: {
    canPaginate: true,
    perform,
    sample: { id: 21, name: 'Weekly check-in (call, active, #21)', state: 'active', account_number: '1001' },
  },
};
