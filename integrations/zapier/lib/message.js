'use strict';

// The New Message trigger's view of a message. answerdesk pushes each new message to the Zap
// through an on-call contact whose external_api method sends the message's id (HOOK); the
// trigger reads the message as GET /api/v2/messages/{id} returns it, so Zaps built on the
// sample from performList see the same keys and types when real messages arrive.

// FIELDS is every property of the Message object (the Messages docs page) with its
// type, for the sample and the output fields; a trailing ? means the API may answer null. The trigger test compares these keys
// with a real message from the API, so a field added there fails the test until added here.
const FIELDS = {
  id: 'integer',
  uuid: 'string',
  account_id: 'integer',
  agent_id: 'integer?',
  user_id: 'integer?',
  pickup_user_id: 'integer?',
  contact_id: 'integer?',
  delivered_by: 'integer?',
  delivered_to: 'integer?',
  sale_id: 'integer?',
  did_id: 'integer?',
  escalation_level_id: 'integer?',
  activities_count: 'integer',
  closing_action_group_id: 'integer?',
  escalation_counter: 'integer',
  call_id: 'integer?',
  chat_session_id: 'integer?',
  to_do_task_id: 'integer?',
  phone_number: 'string?',
  extension: 'string?',
  caller_id: 'string?',
  first_name: 'string?',
  last_name: 'string?',
  company_name: 'string?',
  content: 'string',
  status: 'string',
  ivr: 'string?',
  phone: 'string?',
  email: 'string?',
  call_ref_id: 'string?',
  note: 'string?',
  address: 'string?',
  address2: 'string?',
  city: 'string?',
  state: 'string?',
  zip: 'string?',
  how_you_hear_about_us: 'string?',
  alt_phone: 'string?',
  receiver_name: 'string?',
  non_message_type: 'string?',
  email_subject: 'string?',
  origin: 'string',
  disposition: 'string?',
  klass_names: 'string?',
  read: 'boolean',
  is_emergency: 'boolean',
  positive_data_dip: 'boolean',
  from_to_do: 'boolean',
  created_at: 'string',
  updated_at: 'string',
  pickup_date: 'string?',
  delivered_at: 'string?',
  next_escalation_at: 'string?',
  message_received_date: 'string?',
  send_at: 'string?',
  acknowledged_at: 'string?',
  answers: 'object?',
};

// HOOK is the data of the external_api delivery method that the trigger subscribes with:
// the message's id and uuid and its account's number and name, by their merge variables.
// A method has at most 50 data fields (the External API dispatching docs page), fewer than a message has, so the hook
// names the message and perform reads it from the API: the Zap gets every field, typed as
// the API types them, and the message's content never passes through the hook body.
const HOOK = {
  id: '{{message.id}}',
  uuid: '{{message.uuid}}',
  account_number: '{{account.number}}',
  account_name: '{{account.name}}',
};

const hookData = () => Object.entries(HOOK).map(([field, value]) => ({ field, value }));

// withAccount adds the account's number and name to a message read from the API.
const withAccount = (message, account) => ({
  ...message,
  account_number: account ? account.number : null,
  account_name: account ? account.name : null,
});

// SAMPLE is a message of the demo data, for the Zap editor before any message arrives.
const SAMPLE = {
  id: 498,
  uuid: 'd6042b2d-1893-4aae-b6ca-05ec68926319',
  account_id: 1,
  agent_id: 2102,
  user_id: null,
  pickup_user_id: null,
  contact_id: null,
  delivered_by: null,
  delivered_to: null,
  sale_id: null,
  did_id: 1,
  escalation_level_id: null,
  activities_count: 0,
  closing_action_group_id: null,
  escalation_counter: 0,
  call_id: 700007298,
  chat_session_id: null,
  to_do_task_id: null,
  phone_number: '+19175550138',
  extension: null,
  caller_id: '+19175550138',
  first_name: 'Carlos',
  last_name: 'Rossi',
  company_name: 'Summit Fitness',
  content:
    'Carlos Rossi of Summit Fitness called about a toilet that is overflowing and will not stop. Please call back at (917) 555-0138.',
  status: 'new',
  ivr: null,
  phone: '(917) 555-0138',
  email: null,
  call_ref_id: '1001-700007298',
  note: null,
  address: null,
  address2: null,
  city: null,
  state: null,
  zip: null,
  how_you_hear_about_us: null,
  alt_phone: null,
  receiver_name: 'Derek Howard',
  non_message_type: null,
  email_subject: null,
  origin: 'CALL',
  disposition: 'Urgent - on-call notified',
  klass_names: null,
  read: false,
  is_emergency: true,
  positive_data_dip: false,
  from_to_do: false,
  created_at: '2026-11-22T16:14:44.288Z',
  updated_at: '2026-11-22T16:14:44.288Z',
  pickup_date: null,
  delivered_at: null,
  next_escalation_at: null,
  message_received_date: '2026-11-22T16:14:44.288Z',
  send_at: null,
  acknowledged_at: null,
  answers: {
    'Callback number': '(917) 555-0138',
    'Reason for call': "Toilet overflowing and won't stop",
  },
  account_number: '1001',
  account_name: 'Acme Plumbing',
};

// OUTPUT_FIELDS label the fields Zap builders use most.
const OUTPUT_FIELDS = [
  { key: 'id', label: 'Message ID', type: 'integer' },
  { key: 'uuid', label: 'Message UUID' },
  { key: 'content', label: 'Message Text' },
  { key: 'origin', label: 'Origin (CALL, AI_CALL, CHAT, SMS, EMAIL, WEB, API)' },
  { key: 'status', label: 'Status' },
  { key: 'caller_id', label: 'Caller ID' },
  { key: 'first_name', label: 'First Name' },
  { key: 'last_name', label: 'Last Name' },
  { key: 'company_name', label: 'Company Name' },
  { key: 'phone', label: 'Phone' },
  { key: 'email', label: 'Email' },
  { key: 'is_emergency', label: 'Is Emergency', type: 'boolean' },
  { key: 'created_at', label: 'Created At', type: 'datetime' },
  { key: 'account_id', label: 'Account ID', type: 'integer' },
  { key: 'account_number', label: 'Account Number' },
  { key: 'account_name', label: 'Account Name' },
];

module.exports = { FIELDS, HOOK, hookData, withAccount, SAMPLE, OUTPUT_FIELDS };
