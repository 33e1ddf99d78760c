'use strict';

const { getAll } = require('../lib/api');
const todo = require('../lib/todo');

const fromEmail = {
  key: 'from_email',
  label: 'From Email',
  required: true,
  helpText: "Sending address. It must be on one of the account's authenticated sending domains.",
};

// The inputs of an email, keyed by their field in POST /api/v2/to-dos.
const fields = [
  fromEmail,
  { key: 'sender_name', label: 'Sender Name', required: false, helpText: 'Display name of the sender.' },
  { key: 'contact', label: 'To Email', required: true, helpText: 'Address that receives the email.' },
  { key: 'subject', label: 'Subject', required: false },
  { key: 'message_text', label: 'Message', type: 'text', required: true, helpText: 'Plain-text body.' },
];

// fromEmailField lists the chosen account's sending domains in the help text: answerdesk
// knows the domains an address must be on, not the addresses.
const fromEmailField = async (z, bundle) => {
  const chosen = bundle.inputData && bundle.inputData.account_number;
  if (!chosen) {
    return [fromEmail];
  }
  const accounts = await getAll(z, '/api/v2/accounts', { pageSize: 200 });
  const account = accounts.find((a) => a.number === String(chosen));
  if (!account) {
    return [fromEmail];
  }
  const helpText =
    account.sending_domains.length > 0
      ? `Sending address on one of the account's authenticated sending domains: ${account.sending_domains.join(', ')}.`
      : 'This account has no authenticated sending domain yet, so it cannot send email To-Dos.';
  return [{ ...fromEmail, helpText }];
};

// Create Email To-Do: POST /api/v2/to-dos with delivery_type email.
module.exports = {
  key: 'email_todo',
  noun: 'Email To-Do',
  display: {
    label: 'Create Email To-Do',
    description: "Schedules an email from an address on one of the account's authenticated sending domains.",
  },
  operation: {
    inputFields: [
      todo.accountField,
      fromEmailField,
      ...fields.slice(1),
      todo.nameField,
      todo.scheduleChoice,
      todo.scheduleFields,
    ],
    perform: (z, bundle) => todo.createToDo(z, bundle, 'email', fields),
    sample: todo.sampleToDo({
      delivery_type: 'email',
      contact: 'pat@example.com',
      from_email: 'office@acme.example',
      sender_name: 'Acme Office',
      subject: 'Appointment confirmed',
      message_text: 'See you at 3 PM.',
      provider_authenticated_domain_id: 1,
    }),
    outputFields: todo.OUTPUT_FIELDS,
  },
};
