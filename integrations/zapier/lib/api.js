'use strict';

// How the app talks to answerdesk: the base URL, the bearer token, and turning the API's
// error object (the Errors docs page) into errors a Zapier user can act on.

// baseUrl is the answerdesk server of the connection: the address the user gave when
// connecting (answerdesk is self-hosted, so every customer's server has its own), else
// ANSWERDESK_BASE_URL set on the app with `zapier env:set` for a single deployment.
const baseUrl = (bundle) => {
  const fromAuth = bundle.authData && bundle.authData.base_url;
  const url = String(fromAuth || process.env.ANSWERDESK_BASE_URL || '').trim();
  if (!/^https?:\/\/[^/]/i.test(url)) {
    throw new Error(
      'base_url: enter the address of your answerdesk server, e.g. https://answers.example.com',
    );
  }
  return url.replace(/\/+$/, '');
};

// A path like /api/v2/messages becomes an absolute URL on the connection's server, and every
// request carries the API key as a bearer token.
const addBaseUrlAndAuth = (request, z, bundle) => {
  if (request.url && request.url.startsWith('/')) {
    request.url = baseUrl(bundle) + request.url;
  }
  request.headers = request.headers || {};
  request.headers.Accept = 'application/json';
  if (bundle.authData && bundle.authData.api_key) {
    request.headers.Authorization = `Bearer ${bundle.authData.api_key}`;
  }
  return request;
};

// describeFieldErrors turns [{field, message}] into "contact: is required; from: ...". With
// labels (API field name to the input's label) a field reads "To Number (contact)", so the
// user finds the input and a developer the API field.
const describeFieldErrors = (errors, labels = {}) =>
  (errors || [])
    .map((e) => `${labels[e.field] ? `${labels[e.field]} (${e.field})` : e.field}: ${e.message}`)
    .join('; ');

// handleErrors is the afterResponse middleware: every answer that is not a success becomes
// one readable error (see raiseForStatus). Requests made with skipThrowForStatus handle their
// status themselves.
const handleErrors = (response, z) => {
  if (response.status < 400 || response.skipThrowForStatus) {
    return response;
  }
  return raiseForStatus(response, z);
};

// raiseForStatus throws for an answer that is not a success, naming every field answerdesk
// refused (422) so that the Zap editor shows which input to fix.
const raiseForStatus = (response, z, labels = {}) => {
  if (response.status < 400) {
    return response;
  }
  let body = {};
  try {
    body = response.data || JSON.parse(response.content);
  } catch (err) {
    body = {};
  }
  const code = body.code || `http_${response.status}`;
  const message = body.message || `answerdesk answered HTTP ${response.status}`;
  if (response.status === 401) {
    throw new z.errors.Error(
      `The API key was refused (${message}). Create a new API token in answerdesk and reconnect.`,
      'AuthenticationError',
      401,
    );
  }
  if (response.status === 422 && Array.isArray(body.errors) && body.errors.length > 0) {
    throw new z.errors.Error(
      `answerdesk refused the request: ${describeFieldErrors(body.errors, labels)}`,
      code,
      422,
    );
  }
  if (response.status >= 500) {
    throw new z.errors.Error(
      `answerdesk is unavailable right now (${message}); try again later.`,
      code,
      response.status,
    );
  }
  throw new z.errors.Error(`answerdesk answered ${response.status} ${code}: ${message}`, code, response.status);
};

// getAll pages through a standard list ({data, meta}) and returns every item, at most max.
const getAll = async (z, path, { pageSize = 100, max = 1000 } = {}) => {
  const items = [];
  for (let page = 1; items.length < max; page++) {
    const sep = path.includes('?') ? '&' : '?';
    const response = await z.request({ url: `${path}${sep}page=${page}&page_size=${pageSize}` });
    const { data, meta } = response.data;
    items.push(...data);
    if (!meta || !meta.total_pages || page >= meta.total_pages || data.length === 0) {
      break;
    }
  }
  return items.slice(0, max);
};

// findAccount returns the visible account with this number, or throws naming the input.
const findAccount = async (z, number) => {
  const accounts = await getAll(z, '/api/v2/accounts', { pageSize: 200 });
  const account = accounts.find((a) => a.number === String(number).trim());
  if (!account) {
    throw new z.errors.Error(
      `account_number: no account ${number} is visible to this connection`,
      'invalid_parameter',
      422,
    );
  }
  return account;
};

module.exports = {
  baseUrl,
  addBaseUrlAndAuth,
  handleErrors,
  raiseForStatus,
  describeFieldErrors,
  getAll,
  findAccount,
};
