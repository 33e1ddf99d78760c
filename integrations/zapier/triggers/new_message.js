'use strict';

const { findAccount, raiseForStatus } = require('../lib/api');
const message = require('../lib/message');

// The New Message trigger is a REST hook. answerdesk has no webhook subscription API
// (the External API dispatching docs page): a subscription is an on-call contact at escalation level 1 of the chosen
// account, with an external_api delivery method that POSTs the id of every new message of
// the account to the Zap's hook URL, directly and with retries; perform reads the message.
// Unsubscribing deletes that contact.

const contactName = (bundle) => {
  const zap = bundle.meta && bundle.meta.zap && bundle.meta.zap.id;
  return zap ? `Zapier (Zap ${zap})` : 'Zapier';
};

const performSubscribe = async (z, bundle) => {
  const response = await z.request({
    method: 'POST',
    url: '/api/v2/on-call-contacts',
    body: {
      account_number: bundle.inputData.account_number,
      name: contactName(bundle),
      escalation_level: 1,
      delivery_methods: [
        {
          type: 'external_api',
          url: bundle.targetUrl,
          payload_type: 'JSON',
          data: message.hookData(),
        },
      ],
    },
  });
  // Zapier keeps this as bundle.subscribeData for performUnsubscribe.
  return response.data.data;
};

const performUnsubscribe = async (z, bundle) => {
  const id = bundle.subscribeData && bundle.subscribeData.id;
  if (!id) {
    throw new z.errors.Error('The subscription has no on-call contact id to delete', 'invalid_subscription', 400);
  }
  const response = await z.request({
    method: 'DELETE',
    url: `/api/v2/on-call-contacts/${encodeURIComponent(id)}`,
    skipThrowForStatus: true,
  });
  // Already gone (deleted by hand in answerdesk) is what unsubscribing wants.
  if (response.status === 404) {
    return { id, deleted: true };
  }
  raiseForStatus(response, z);
  return response.data.data;
};

// perform receives the hook body answerdesk POSTed for one new message (its id, and its
// account's number and name) and reads the message itself from the API.
const perform = async (z, bundle) => {
  const body = bundle.cleanedRequest || {};
  if (!body.id) {
    throw new z.errors.Error('The hook body names no message id', 'invalid_hook', 400);
  }
  const response = await z.request({ url: `/api/v2/messages/${encodeURIComponent(body.id)}` });
  return [message.withAccount(response.data.data, { number: body.account_number, name: body.account_name })];
};

// performList gives the Zap editor recent messages of the account, in the same shape.
const performList = async (z, bundle) => {
  const account = await findAccount(z, bundle.inputData.account_number);
  const response = await z.request({ url: '/api/v2/messages/recents', params: { limit: 100 } });
  return response.data.data
    .filter((m) => m.account_id === account.id)
    .slice(0, 10)
    .map((m) => message.withAccount(m, account));
};

module.exports = {
  key: 'new_message',
  noun: 'Message',
  display: {
    label: 'New Message',
    description:
      'Triggers instantly when a message is taken on one of your answerdesk accounts. Do not use it for protected health information: use External API dispatching instead.',
  },
  operation: {
    type: 'hook',
    inputFields: [
      {
        key: 'account_number',
        label: 'Account',
        required: true,
        dynamic: 'account_list.id.name',
        helpText: 'The answerdesk account whose new messages trigger the Zap.',
      },
    ],
    performSubscribe,
    performUnsubscribe,
    perform,
    performList,
    sample: message.SAMPLE,
    outputFields: message.OUTPUT_FIELDS,
  },
};
