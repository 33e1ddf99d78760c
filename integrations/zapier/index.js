'use strict';

const { version } = require('./package.json');
const { version: platformVersion } = require('zapier-platform-core');

const authentication = require('./authentication');
const { addBaseUrlAndAuth, handleErrors } = require('./lib/api');
const newMessage = require('./triggers/new_message');
const accountList = require('./triggers/account_list');
const smsNumberList = require('./triggers/sms_number_list');
const sendingDomainList = require('./triggers/sending_domain_list');
const toDoList = require('./triggers/to_do_list');
const callToDo = require('./creates/call_todo');
const smsToDo = require('./creates/sms_todo');
const emailToDo = require('./creates/email_todo');
const cancelToDo = require('./creates/cancel_todo');

const byKey = (...items) => Object.fromEntries(items.map((i) => [i.key, i]));

// The answerdesk app: one instant trigger and four actions over the customer API /api/v2.
module.exports = {
  version,
  platformVersion,
  authentication,
  beforeRequest: [addBaseUrlAndAuth],
  afterResponse: [handleErrors],
  triggers: byKey(newMessage, accountList, smsNumberList, sendingDomainList, toDoList),
  creates: byKey(callToDo, smsToDo, emailToDo, cancelToDo),
  searches: {},
  resources: {},
};
