'use strict';

const { raiseForStatus } = require('../lib/api');
const todo = require('../lib/todo');

// Cancel To-Do: DELETE /api/v2/to-dos/{id}. A Zap that created a To-Do can
// keep its id (the Create actions' "To-Do ID") and cancel it when the appointment it
// reminds of is cancelled elsewhere. Cancelling is for good and idempotent: a To-Do that is
// already cancelled is answered as it is, so a replayed Zap step does no harm.
module.exports = {
  key: 'cancel_todo',
  noun: 'To-Do',
  display: {
    label: 'Cancel To-Do',
    description:
      'Cancels a To-Do for good: nothing more is sent (a delivery already under way finishes). The To-Do stays readable in answerdesk.',
    important: true,
  },
  operation: {
    inputFields: [
      {
        key: 'id',
        label: 'To-Do',
        required: true,
        dynamic: 'to_do_list.id.name',
        helpText: 'The To-Do to cancel: pick one, or map the "To-Do ID" of a Create To-Do step.',
      },
    ],
    perform: async (z, bundle) => {
      const id = String(bundle.inputData.id || '').trim();
      if (!/^[0-9]+$/.test(id)) {
        throw new z.errors.Error(`To-Do (id): "${id}" is not a To-Do ID (a whole number).`, 'invalid_parameter', 422);
      }
      const response = await z.request({ method: 'DELETE', url: `/api/v2/to-dos/${id}`, skipThrowForStatus: true });
      raiseForStatus(response, z, { id: 'To-Do' });
      return response.data.data;
    },
    sample: todo.sampleToDo({ state: 'cancelled', delivery_type: 'call', instructions: 'Weekly check-in' }),
    outputFields: [...todo.OUTPUT_FIELDS, { key: 'state', label: 'State' }],
  },
};
