'use strict';

const todo = require('../lib/todo');

// The inputs of an SMS, keyed by their field in POST /api/v2/to-dos.
const fields = [
  {
    key: 'from',
    label: 'From Number',
    required: true,
    dynamic: 'sms_number_list.id.name',
    helpText: "One of the account's SMS-enabled numbers (a leading +1 may be left out).",
  },
  {
    key: 'contact',
    label: 'To Number',
    required: true,
    helpText: 'Phone number that receives the text, e.g. +15555550123.',
  },
  { key: 'message_text', label: 'Message', type: 'text', required: true },
];

// Create SMS To-Do: POST /api/v2/to-dos with delivery_type sms.
module.exports = {
  key: 'sms_todo',
  noun: 'SMS To-Do',
  display: {
    label: 'Create SMS To-Do',
    description: "Schedules a text message from one of the account's SMS-enabled numbers.",
  },
  operation: {
    inputFields: [todo.accountField, ...fields, todo.nameField, todo.scheduleChoice, todo.scheduleFields],
    perform: (z, bundle) => todo.createToDo(z, bundle, 'sms', fields),
    sample: todo.sampleToDo({
      delivery_type: 'sms',
      phone_id: 1,
      contact: '+15555550123',
      from: '5550101001',
      message_text: 'Your plumber is 10 minutes away.',
    }),
    outputFields: todo.OUTPUT_FIELDS,
  },
};
