'use strict';

const { raiseForStatus } = require('./api');

// What the three Create To-Do actions share: the account input, the schedule inputs, and
// building the flat body of POST /api/v2/to-dos (the To Dos docs page). The rules
// themselves (required fields per channel, from numbers, sending domains, times already past)
// are answerdesk's: its 422 names the failing field and the action shows it.

const accountField = {
  key: 'account_number',
  label: 'Account',
  required: true,
  dynamic: 'account_list.id.name',
  altersDynamicFields: true,
  helpText: 'The answerdesk account the To-Do runs against. Schedule times are in its time zone.',
};

const nameField = {
  key: 'name',
  label: 'Name',
  required: false,
  helpText: 'A label for the To-Do. Defaults to the time it is created.',
};

const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

const scheduleChoice = {
  key: 'schedule',
  label: 'When',
  required: true,
  default: 'immediately',
  choices: {
    immediately: 'Immediately',
    today: 'Today, at the times below',
    recurring: 'Recurring, on the schedule below',
  },
  altersDynamicFields: true,
  helpText: 'Send once right away, once today at each time, or on a recurring schedule.',
};

const timesField = (required) => ({
  key: 'times',
  label: 'Times',
  list: true,
  required,
  helpText:
    'Wall-clock times as HH:MM (24-hour) in the account\'s time zone, e.g. 09:30 and 17:00. With "Today", times already past are refused.',
});

// scheduleFields shows only the inputs the chosen schedule uses.
const scheduleFields = (z, bundle) => {
  const kind = (bundle.inputData && bundle.inputData.schedule) || 'immediately';
  if (kind === 'today') {
    return [timesField(true)];
  }
  if (kind !== 'recurring') {
    return [];
  }
  return [
    {
      key: 'frequency',
      label: 'Frequency',
      required: true,
      choices: { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly' },
      altersDynamicFields: true,
    },
    {
      key: 'interval',
      label: 'Interval',
      type: 'integer',
      required: false,
      default: '1',
      helpText: 'Every how many days, weeks or months (1 or more).',
    },
    {
      key: 'weekdays',
      label: 'Days of the Week',
      list: true,
      required: false,
      choices: Object.fromEntries(WEEKDAYS.map((d) => [d, d[0].toUpperCase() + d.slice(1)])),
      helpText: 'Weekly only: the days it runs.',
    },
    {
      key: 'month_days',
      label: 'Days of the Month',
      list: true,
      type: 'integer',
      required: false,
      helpText: 'Monthly only: days 1 to 31. A month without that day is skipped.',
    },
    timesField(true),
  ];
};

// list reads a list input: Zapier sends arrays, a mapped value may be one comma-separated string.
const list = (v) => {
  if (v === undefined || v === null || v === '') {
    return [];
  }
  const items = Array.isArray(v) ? v : String(v).split(',');
  return items.map((x) => String(x).trim()).filter((x) => x !== '');
};

// buildSchedule turns the schedule inputs into the API's schedule object.
const buildSchedule = (input) => {
  const kind = input.schedule || 'immediately';
  if (kind === 'immediately') {
    return { rule: 'immediately' };
  }
  if (kind === 'today') {
    return { rule: 'today', times: list(input.times) };
  }
  const schedule = { frequency: input.frequency, times: list(input.times) };
  if (input.interval !== undefined && input.interval !== null && input.interval !== '') {
    const n = Number(input.interval);
    schedule.interval = Number.isInteger(n) ? n : input.interval; // answerdesk explains a bad one
  }
  if (input.frequency === 'weekly') {
    schedule.days = list(input.weekdays).map((d) => d.toLowerCase());
  } else if (input.frequency === 'monthly') {
    schedule.days = list(input.month_days).map((d) => (/^\d+$/.test(d) ? Number(d) : d));
  }
  return schedule;
};

// pick copies the non-empty inputs among keys.
const pick = (input, keys) => {
  const out = {};
  for (const k of keys) {
    if (input[k] !== undefined && input[k] !== null && String(input[k]).trim() !== '') {
      out[k] = String(input[k]).trim();
    }
  }
  return out;
};

// SCHEDULE_LABELS name the schedule inputs behind the API's schedule.* fields.
const SCHEDULE_LABELS = {
  schedule: 'When',
  'schedule.rule': 'When',
  'schedule.times': 'Times',
  'schedule.frequency': 'Frequency',
  'schedule.interval': 'Interval',
  'schedule.days': 'Days of the Week / Days of the Month',
};

// createToDo posts the To-Do built from the channel's input fields (their keys are the API's
// body fields) and returns it as answerdesk answers. A 422 names each failing field by its
// input's label, so the user sees which input to fix.
const createToDo = async (z, bundle, deliveryType, channelFields) => {
  const input = bundle.inputData;
  const body = {
    ...pick(input, ['account_number', 'name', ...channelFields.map((f) => f.key)]),
    delivery_type: deliveryType,
    schedule: buildSchedule(input),
  };
  const response = await z.request({ method: 'POST', url: '/api/v2/to-dos', body, skipThrowForStatus: true });
  const labels = { ...SCHEDULE_LABELS };
  for (const f of [accountField, nameField, ...channelFields]) {
    labels[f.key] = f.label;
  }
  raiseForStatus(response, z, labels);
  return response.data.data;
};

// sampleToDo is the shape of a created To-Do, for the Zap editor.
const sampleToDo = (fields) => ({
  id: 21,
  name: '2026-11-22T18:00:00.000Z',
  account_number: '1001',
  phone_id: null,
  delivery_type: 'call',
  contact: null,
  message_text: null,
  instructions: null,
  from: null,
  from_email: null,
  sender_name: null,
  subject: null,
  provider_authenticated_domain_id: null,
  ai_assistant_id: null,
  times: [],
  is_sending: false,
  created_at: '2026-11-22T18:00:00.000Z',
  updated_at: '2026-11-22T18:00:00.000Z',
  last_delivery: null,
  schedule: {
    id: 21,
    schedulable_id: 21,
    schedulable_type: 'ToDo',
    rule: { rule: 'immediately', tz: 'America/New_York' },
    times: [],
    previous_occurrence: null,
    next_occurrence: '2026-11-22T18:00:00.000Z',
    created_at: '2026-11-22T18:00:00.000Z',
    updated_at: '2026-11-22T18:00:00.000Z',
  },
  ...fields,
});

const OUTPUT_FIELDS = [
  { key: 'id', label: 'To-Do ID', type: 'integer' },
  { key: 'name', label: 'Name' },
  { key: 'delivery_type', label: 'Delivery Type' },
  { key: 'account_number', label: 'Account Number' },
  { key: 'schedule__next_occurrence', label: 'Next Occurrence', type: 'datetime' },
];

module.exports = {
  accountField,
  nameField,
  scheduleChoice,
  scheduleFields,
  buildSchedule,
  createToDo,
  sampleToDo,
  OUTPUT_FIELDS,
  list,
};
