// The review queue (admin): quarantined facts oldest first, each with the reason it was held.
// Validate or reject with a reason; the fact then leaves the queue, and its card stays with the
// decision beside the fact. Live: when an agent's
// write is quarantined, the queue refreshes without a reload.

import {FACT, gql} from '../api.js';
import {field, h, when} from '../dom.js';
import {liveQueue} from '../live.js';
import {busy, errorSlot, notice, showError, triple} from '../ui.js';

const QUEUE = `query ConsoleQueue($scope: String!, $first: Int!, $after: String) {
  reviewQueue(scope: $scope, first: $first, after: $after) {
    held { reason heldAt fact { ${FACT} } }
    nextCursor
  }
}`;
const VALIDATE = `mutation ConsoleValidate($scope: String!, $id: ID!, $reason: String!) {
  validate(scope: $scope, id: $id, reason: $reason) { kind reason fact { id status } matched { id text } }
}`;
const REJECT = `mutation ConsoleReject($scope: String!, $id: ID!, $reason: String!) {
  reject(scope: $scope, id: $id, reason: $reason) { id status }
}`;

function row({fact, reason, heldAt}, scope, onDone) {
  const reasonInput = h('input', {type: 'text', name: 'reason', 'data-field': 'reason', value: '', required: true,
    placeholder: 'why you decide so'});
  const errors = errorSlot();
  const form = h('form', {class: 'decide', 'aria-label': `Decide on: ${fact.text}`},
    field('Your reason', reasonInput),
    h('div', {class: 'actions'},
      h('button', {type: 'submit', value: 'validate', class: 'primary'}, 'Validate'),
      h('button', {type: 'submit', value: 'reject', class: 'danger'}, 'Reject')),
    errors);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const verb = event.submitter ? event.submitter.value : 'validate';
    const why = reasonInput.value.trim() || (verb === 'validate' ? 'validated' : 'rejected');
    await busy(form, async () => {
      try {
        if (verb === 'validate') {
          const result = (await gql(VALIDATE, {scope, id: fact.id, reason: why})).validate;
          onDone(item, `Validated: ${result.kind} (${result.reason}); now ${result.fact.status.toLowerCase()}.`);
        } else {
          const result = (await gql(REJECT, {scope, id: fact.id, reason: why})).reject;
          onDone(item, `Rejected: now ${result.status.toLowerCase()}.`);
        }
      } catch (err) {
        showError(errors, err, form);
      }
    });
  });
  const item = h('li', {class: 'review-item', dataset: {factId: fact.id}},
    h('article', {},
      h('h3', {class: 'fact-text'}, h('a', {href: `#/fact/${encodeURIComponent(fact.id)}`}, fact.text)),
      h('p', {class: 'meta'}, 'held since ', when(heldAt || fact.recordedAt),
        fact.source ? [' · source ', h('code', {}, fact.source)] : null,
        ' · partition ', h('code', {}, fact.partition)),
      triple(fact),
      h('p', {class: 'held'}, h('strong', {}, 'Held because: '), reason || 'no reason recorded')),
    form);
  return item;
}

/** A decided card: the outcome replaces the form, and the fact stays, so that after a few
 * decisions each still says which fact it was about. */
function decided(item, message) {
  const form = item.querySelector('form.decide');
  const outcome = h('p', {class: 'decided', role: 'status'}, message);
  if (form) form.replaceWith(outcome); else item.append(outcome);
  item.classList.add('done');
}

export async function render(main, {params, stale}, ctx) {
  const errors = errorSlot();
  const status = h('p', {class: 'live', role: 'status'});
  const list = h('ol', {class: 'review', 'aria-label': 'Quarantined facts, oldest first'});
  const pager = h('nav', {class: 'pager', 'aria-label': 'Queue pages'});
  main.append(h('h1', {}, 'Review queue'),
    h('p', {class: 'hint'}, 'Quarantined facts wait here, oldest first, until an admin validates or rejects them.'),
    errors, status, list, pager);
  const after = params.get('after');
  let nextCursor = null;
  let renderRow = null;

  async function load() {
    try {
      const page = (await gql(QUEUE, {scope: ctx.scope, first: 20, after: after || null})).reviewQueue;
      if (stale()) return;
      errors.replaceChildren();
      errors.classList.remove('shown');
      nextCursor = page.nextCursor;
      const done = (item, message) => decided(item, message);
      renderRow = (held) => row(held, ctx.scope, done);
      list.replaceChildren(...page.held.map(renderRow));
      if (!page.held.length) list.append(h('li', {class: 'empty'}, notice('Nothing waits for review.')));
      pager.replaceChildren();
      if (after) pager.append(h('a', {class: 'button', href: '#/review'}, 'First page'));
      if (page.nextCursor) {
        pager.append(h('a', {class: 'button', href: `#/review?after=${encodeURIComponent(page.nextCursor)}`}, 'Next page'));
      }
    } catch (err) {
      if (stale()) return;
      list.replaceChildren();
      showError(errors, err);
    }
  }
  list.append(h('li', {}, notice('Loading…')));
  await load();
  if (stale() || !renderRow) return undefined;  // refused: nothing to keep live
  return liveQueue(ctx, (change) => {
    if (change.__typename === 'EventsDropped') {
      status.textContent = 'Some queue changes were missed; reload to see the queue as it is.';
      return;
    }
    const item = list.querySelector(`li.review-item[data-fact-id="${CSS.escape(change.factId)}"]`);
    if (change.queue === 'ENTERED' && change.fact && !item && !nextCursor) {
      // Oldest first: a newly held fact joins the end of the last page.
      const empty = list.querySelector('li.empty');
      if (empty) empty.remove();
      const row = renderRow({fact: change.fact, reason: change.reason, heldAt: change.at});
      row.classList.add('arrived');
      list.append(row);
      status.textContent = `Newly held: "${change.fact.text}"`;
    } else if (change.queue === 'LEFT' && item && !item.classList.contains('done')
        && !item.querySelector('form[aria-busy]')) {
      decided(item, `Decided elsewhere: ${change.action.toLowerCase()} by ${change.actor} (${change.reason}).`);
    }
  }, status);
}
