'use strict';

// API key authentication: the user pastes an answerdesk customer API token (ak_...), sent as
// a bearer token, and the address of their answerdesk server.

const test = async (z) => {
  // Any authenticated read proves the token works; recents is the cheapest.
  const response = await z.request({ url: '/api/v2/messages/recents', params: { limit: 1 } });
  return response.data;
};

// connectionLabel names the connection after the token's user, so that someone with several
// connections can tell them apart.
const connectionLabel = async (z) => {
  const response = await z.request({ url: '/api/v2/me' });
  return response.data.data.email;
};

module.exports = {
  type: 'custom',
  fields: [
    {
      key: 'base_url',
      label: 'answerdesk Address',
      type: 'string',
      required: false,
      helpText:
        'The address of your answerdesk server, e.g. `https://answers.example.com`. Leave empty to use the address this app was set up with.',
    },
    {
      key: 'api_key',
      label: 'API Key',
      type: 'password',
      required: true,
      helpText:
        'An answerdesk customer API token (it starts with `ak_`). Create one for Zapier alone, so you can revoke it without breaking other integrations.',
    },
  ],
  test,
  connectionLabel,
};
