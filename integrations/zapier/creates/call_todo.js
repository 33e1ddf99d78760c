'use strict';

const todo = require('../lib/todo');

// The inputs of a call, keyed by their field in POST /api/v2/to-dos.
const fields = [
  {
    key: 'instructions',
    label: 'Instructions',
    type: 'text',
    required: true,
    helpText: 'What the agent says or does on the call.',
  },
  {
    key: 'contact',
    label: 'Number to Call',
    required: false,
    helpText: 'Phone number to dial. Leave empty for a task that a live agent carries out.',
  },
];

// Create Call To-Do: POST /api/v2/to-dos with delivery_type call.
module.exports = {
  key: 'call_todo',
  noun: 'Call To-Do',
  display: {
    label: 'Create Call To-Do',
    description:
      "Schedules a phone call: dialled through the account's voice provider when it has a number to call, otherwise a task for a live agent.",
  },
  operation: {
    inputFields: [todo.accountField, ...fields, todo.nameField, todo.scheduleChoice, todo.scheduleFields],
    perform: (z, bundle) => todo.createToDo(z, bundle, 'call', fields),
    sample: todo.sampleToDo({
      delivery_type: 'call',
      contact: '+15555550188',
      instructions: 'Call back about the leak under the kitchen sink',
    }),
    outputFields: todo.OUTPUT_FIELDS,
  },
};
