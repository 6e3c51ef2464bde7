// Write and correct: remember a fact and see what the pipeline decided (and the chain it now
// belongs to), or supersede a fact named in the address (#/write?supersede=<id>).

import {FACT, gql} from '../api.js';
import {field, fill, h} from '../dom.js';
import {busy, clearErrors, errorSlot, factSummary, formValues, notice, showError, splitList} from '../ui.js';
import {chainTimeline} from './fact.js';

const RESULT = `kind reason fact { ${FACT} } matched { ${FACT} }`;
const REMEMBER = `mutation ConsoleRemember($scope: String!, $fact: FactInput!) {
  remember(scope: $scope, fact: $fact) { ${RESULT} }
}`;
const SUPERSEDE = `mutation ConsoleSupersede($scope: String!, $id: ID!, $fact: FactInput!, $reason: String!) {
  supersede(scope: $scope, id: $id, fact: $fact, reason: $reason) { ${RESULT} }
}`;
const HISTORY = `query ConsoleChain($scope: String!, $id: ID!) { history(scope: $scope, id: $id) { ${FACT} } }`;
const ONE = `query ConsoleOne($scope: String!, $id: ID!) { history(scope: $scope, id: $id) { ${FACT} } }`;

const EXPLAIN = {
  INSERT: 'stored as a new fact',
  DEDUP: 'already known: the existing fact was reinforced',
  MERGE: 'a near-duplicate: merged into the existing fact',
  SUPERSEDE: 'it contradicts an older fact, which it now supersedes',
  QUARANTINE: 'held for review: it waits in the review queue until an admin decides',
};

export async function render(main, {params, stale}, ctx) {
  const target = params.get('supersede');
  let old = null;
  const errors = errorSlot();
  if (target) {
    try {
      const found = await gql(ONE, {scope: ctx.scope, id: target}, {tolerate: ['NOT_FOUND']});
      old = (found.history || []).find((f) => f.id === target) || null;
    } catch (err) {
      main.append(h('h1', {}, 'Supersede'), errors);
      showError(errors, err);
      return;
    }
    if (stale()) return;
    if (!old) {
      main.append(h('h1', {}, 'Supersede'), errors);
      showError(errors, new Error(`No fact with id "${target}" in scope "${ctx.scope}".`));
      return;
    }
  }
  const text = (name, attrs = {}) => h('input', {type: 'text', name, 'data-field': name, autocomplete: 'off', ...attrs});
  const form = h('form', {class: 'write-form', 'aria-label': old ? 'Supersede a fact' : 'Remember a fact'},
    field('Text', h('textarea', {name: 'text', 'data-field': 'text', rows: 3, required: true}, old ? old.text : '')),
    h('div', {class: 'row'},
      field('Subject', text('subject', {value: old?.subject || ''})),
      field('Predicate', text('predicate', {value: old?.predicate || ''}), 'e.g. lives_in, works_at'),
      field('Object', text('object', {value: old?.object || ''}))),
    h('div', {class: 'row'},
      field('Tags', text('tags', {value: old ? old.tags.join(', ') : '', placeholder: 'a, b'})),
      field('Importance', h('input', {type: 'number', name: 'importance', 'data-field': 'importance', min: 0, max: 10, step: 'any', value: old ? old.importance : ''}), '0 to 10'),
      field('Partition', text('partition', {value: old?.partition || ''})),
      field('Source', text('source', {value: old?.source || ''}))),
    h('div', {class: 'row'},
      field('Session', text('sessionId', {value: old?.sessionId || ''})),
      field('Turn', h('input', {type: 'number', name: 'turn', 'data-field': 'turn', min: 0, step: 1})),
      old ? field('Reason for the change', text('reason', {value: 'corrected in the console', required: true}))
        : h('div', {class: 'field check'},
          h('input', {type: 'checkbox', id: 'untrusted', name: 'untrusted'}),
          h('label', {for: 'untrusted'}, 'Untrusted input (hold it for review)'))),
    h('div', {class: 'actions'}, h('button', {type: 'submit', class: 'primary'}, old ? 'Supersede' : 'Remember')),
    errors);
  const outcome = h('section', {class: 'outcome', 'aria-live': 'polite', 'aria-label': 'What the pipeline decided'});
  main.append(h('h1', {}, old ? 'Supersede a fact' : 'Remember a fact'));
  if (old) main.append(h('div', {class: 'panel'}, h('p', {class: 'hint'}, 'Replacing:'), factSummary(old)));
  main.append(form, outcome);
  form.elements.text.focus();

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const v = formValues(form);
    const fact = {text: v.text};
    for (const name of ['subject', 'predicate', 'object', 'partition', 'source', 'sessionId']) {
      if (v[name]) fact[name] = v[name];
    }
    if (v.tags) fact.tags = splitList(v.tags);
    if (v.importance !== '' && v.importance !== undefined) fact.importance = Number(v.importance);
    if (v.turn !== '' && v.turn !== undefined) fact.turn = Number(v.turn);
    if (v.untrusted) fact.trusted = false;
    await busy(form, async () => {
      clearErrors(form, errors);
      try {
        const data = old
          ? (await gql(SUPERSEDE, {scope: ctx.scope, id: old.id, fact, reason: v.reason || 'corrected in the console'})).supersede
          : (await gql(REMEMBER, {scope: ctx.scope, fact})).remember;
        const chain = (await gql(HISTORY, {scope: ctx.scope, id: data.fact.id})).history;
        fill(outcome,
          h('h2', {}, 'Decision: ', h('span', {class: `decision decision-${data.kind.toLowerCase()}`}, data.kind)),
          h('p', {}, EXPLAIN[data.kind] || '', ' — ', h('span', {class: 'reason'}, data.reason)),
          factSummary(data.fact),
          data.matched ? h('div', {class: 'matched'}, h('p', {class: 'hint'}, 'Matched (as it was before this decision):'), factSummary(data.matched)) : null,
          chain.length > 1 ? [h('h3', {}, 'The chain now'), chainTimeline(chain, data.fact.id)] : null);
        if (!old) form.reset();
        outcome.querySelector('h2').setAttribute('tabindex', '-1');
        outcome.querySelector('h2').focus();
      } catch (err) {
        outcome.replaceChildren();
        showError(errors, err, form);
      }
    });
  });
  if (!ctx.may('writer')) main.prepend(notice('This key may only read; the server will refuse writes.'));
}
