// A fact's page: what it says, its validity and status, the supersede chain as a timeline,
// the audit trail, the facts sharing its entities as a drawing, and the actions on it.

import {FACT, entityNames, factsByIds, gql} from '../api.js';
import {h, num, when} from '../dom.js';
import {confirmDialog, errorSlot, notice, showError, statusBadge, tagList, triple} from '../ui.js';

const HISTORY = `query ConsoleFact($scope: String!, $id: ID!) {
  history(scope: $scope, id: $id) { ${FACT} }
}`;
const AUDIT = `query ConsoleAudit($scope: String!, $id: ID!) {
  auditTrail(scope: $scope, id: $id) { id kind actor reason at }
}`;
const NODE = `query ConsoleNode($scope: String!, $id: ID!) {
  node(scope: $scope, id: $id, limit: 24) { id neighbours { id edgeType relation via } }
}`;
const FORGET = `mutation ConsoleForget($scope: String!, $id: ID!, $reason: String!) {
  forget(scope: $scope, id: $id, reason: $reason) { id status }
}`;
const PURGE = `mutation ConsolePurge($scope: String!, $id: ID!, $reason: String!) {
  purge(scope: $scope, id: $id, reason: $reason)
}`;

function section(title, ...children) {
  const id = `s-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h('section', {class: 'panel', 'aria-labelledby': id}, h('h2', {id}, title), ...children);
}

export function chainTimeline(chain, currentId) {
  return h('ol', {class: 'chain', 'aria-label': 'Supersede chain, oldest first'}, chain.map((f) =>
    h('li', {class: f.id === currentId ? 'current' : '', 'aria-current': f.id === currentId ? 'true' : null},
      h('span', {class: 'dot', 'aria-hidden': 'true'}),
      h('div', {},
        h('p', {class: 'meta'}, statusBadge(f.status), ' ', when(f.validFrom), ' → ',
          f.validTo ? when(f.validTo) : 'now'),
        f.id === currentId ? h('strong', {}, f.text)
          : h('a', {href: `#/fact/${encodeURIComponent(f.id)}`}, f.text)))));
}

function auditTable(events) {
  if (!events.length) return notice('No recorded events.');
  return h('table', {class: 'audit'},
    h('caption', {class: 'visually-hidden'}, 'Audit trail, oldest first'),
    h('thead', {}, h('tr', {}, ['When', 'Event', 'Actor', 'Reason'].map((t) => h('th', {scope: 'col'}, t)))),
    h('tbody', {}, events.map((e) => h('tr', {},
      h('td', {}, when(e.at)), h('td', {}, h('code', {}, e.kind)), h('td', {}, e.actor), h('td', {}, e.reason)))));
}

function purgeBody(fact) {
  return h('div', {class: 'lost'},
    h('p', {}, 'Purging deletes this fact for good. Lost:'),
    h('ul', {},
      h('li', {}, 'its text: ', h('q', {}, fact.text)),
      fact.subject || fact.object
        ? h('li', {}, `its subject / predicate / object: ${fact.subject || '—'} / ${fact.predicate || '—'} / ${fact.object || '—'}`)
        : null,
      fact.tags.length ? h('li', {}, `its tags: ${fact.tags.join(', ')}`) : null,
      h('li', {}, 'its vector and its full-text entry; it can no longer be found or restored')),
    h('p', {}, 'The audit trail keeps only the id ', h('code', {}, fact.id), ' and the reason you give.'));
}

export async function render(main, {arg, stale}, ctx) {
  const id = arg;
  const errors = errorSlot();
  main.append(h('h1', {}, 'Fact'), errors);
  if (!id) { showError(errors, new Error('No fact id in the address.')); return; }
  const loading = notice('Loading…');
  main.append(loading);
  let chain;
  try {
    // An unknown id is NOT_FOUND (history null): said below in the console's own words.
    chain = (await gql(HISTORY, {scope: ctx.scope, id}, {tolerate: ['NOT_FOUND']})).history || [];
  } catch (err) {
    if (!stale()) { loading.remove(); showError(errors, err); }
    return;
  }
  if (stale()) return;
  loading.remove();
  const fact = chain.find((f) => f.id === id);
  if (!fact) {
    showError(errors, new Error(`No fact with id "${id}" in scope "${ctx.scope}".`));
    return;
  }
  const actionErrors = errorSlot();
  const actions = h('div', {class: 'actions', role: 'group', 'aria-label': 'Actions on this fact'});
  if (fact.status === 'ACTIVE' && ctx.may('writer')) {
    actions.append(h('a', {class: 'button', href: `#/write?supersede=${encodeURIComponent(fact.id)}`}, 'Supersede…'));
  }
  if (fact.status !== 'FORGOTTEN' && ctx.may('writer')) {
    actions.append(h('button', {type: 'button', dataset: {action: 'forget'}, onclick: async () => {
      const reason = await confirmDialog({
        title: 'Forget this fact?',
        body: h('p', {}, 'It will be hidden from search and the timeline, and kept in its history and audit trail: ',
          h('q', {}, fact.text)),
        action: 'Forget', reasonDefault: 'forgotten'});
      if (!reason) return;
      try {
        await gql(FORGET, {scope: ctx.scope, id: fact.id, reason});
        ctx.navigate(`#/fact/${encodeURIComponent(fact.id)}`);
      } catch (err) { showError(actionErrors, err); }
    }}, 'Forget…'));
  }
  if (ctx.may('admin')) {
    actions.append(h('button', {type: 'button', class: 'danger', dataset: {action: 'purge'}, onclick: async () => {
      const reason = await confirmDialog({title: 'Purge this fact?', body: purgeBody(fact),
        action: 'Purge for good', reasonLabel: 'Reason (kept in the audit trail)', danger: true});
      if (!reason) return;
      try {
        const purged = (await gql(PURGE, {scope: ctx.scope, id: fact.id, reason})).purge;
        main.replaceChildren(h('h1', {}, 'Fact purged'),
          notice(purged ? `Fact ${fact.id} was purged.` : `There was nothing left to purge for ${fact.id}.`),
          h('p', {}, h('a', {href: '#/timeline'}, 'Back to the timeline')));
      } catch (err) { showError(actionErrors, err); }
    }}, 'Purge…'));
  }
  if (fact.status === 'QUARANTINED' && ctx.may('admin')) {
    actions.append(h('a', {class: 'button', href: '#/review'}, 'Review in the queue'));
  }

  const header = h('section', {class: 'panel fact-head', 'aria-label': 'The fact'},
    h('p', {class: 'fact-text big'}, fact.text),
    h('p', {class: 'meta'}, statusBadge(fact.status), ' ', h('code', {class: 'id'}, fact.id)),
    triple(fact), tagList(fact.tags),
    h('dl', {class: 'props'},
      h('dt', {}, 'Valid'), h('dd', {}, when(fact.validFrom), ' → ', fact.validTo ? when(fact.validTo) : 'now'),
      h('dt', {}, 'Recorded'), h('dd', {}, when(fact.recordedAt), fact.expiredAt ? [' · retired ', when(fact.expiredAt)] : null),
      h('dt', {}, 'Partition'), h('dd', {}, h('code', {}, fact.partition)),
      h('dt', {}, 'Importance'), h('dd', {}, num(fact.importance)),
      fact.source ? [h('dt', {}, 'Source'), h('dd', {}, fact.source)] : null,
      fact.sessionId ? [h('dt', {}, 'Session'), h('dd', {}, h('a', {href: `#/timeline?sessionId=${encodeURIComponent(fact.sessionId)}`}, fact.sessionId),
        fact.turn !== null ? ` · turn ${fact.turn}` : '')] : null),
    actions, actionErrors);
  const auditErrors = errorSlot();
  const auditBody = h('div', {}, notice('Loading…'));
  const graphErrors = errorSlot();
  const graphBody = h('div', {}, notice('Loading…'));
  const entities = {};
  main.append(header,
    section('History', chainTimeline(chain, fact.id)),
    section('Audit trail', auditErrors, auditBody),
    section('Facts sharing its entities', graphErrors, graphBody));

  const audit = gql(AUDIT, {scope: ctx.scope, id: fact.id}).then(
    (data) => { if (!stale()) auditBody.replaceChildren(auditTable(data.auditTrail)); },
    (err) => { if (!stale()) { auditBody.replaceChildren(); showError(auditErrors, err); } });
  const drawing = (async () => {
    try {
      const node = (await gql(NODE, {scope: ctx.scope, id: fact.id})).node;
      const refs = node ? node.neighbours : [];
      for (const r of refs) if (r.relation === 'subject' || r.relation === 'object') entities[r.relation] = r.id;
      const spo = header.querySelector('.spo');
      if (spo) spo.replaceWith(triple(fact, entities));
      const factIds = refs.filter((r) => r.edgeType === 'SUPERSEDES' || r.relation === 'shares_entity').map((r) => r.id);
      const entityIds = refs.filter((r) => r.edgeType === 'MENTIONS').map((r) => r.via || r.id);
      // The drawing and its layout library load with the first fact page, not with the console.
      const [facts, names, {drawNeighbourhood}] = await Promise.all([factsByIds(ctx.scope, factIds),
        entityNames(ctx.scope, entityIds), import('../graph.js')]);
      if (stale()) return;
      if (!refs.length) {
        graphBody.replaceChildren(notice('No entities: this fact has no subject or object.'));
        return;
      }
      // Laid out for the width it is shown at, and again when that changes (a phone turned).
      const wrap = h('div', {class: 'graph-wrap'});
      let drawnAt = 0;
      const draw = () => {
        const width = wrap.clientWidth;
        if (!width || Math.abs(width - drawnAt) < 24) return;
        drawnAt = width;
        wrap.replaceChildren(drawNeighbourhood(fact, refs, facts, names, width));
        wrap.dataset.drawnAt = String(width);  // a script that resized the window waits for it
      };
      graphBody.replaceChildren(wrap);
      draw();
      new ResizeObserver(draw).observe(wrap);
    } catch (err) {
      if (!stale()) { graphBody.replaceChildren(); showError(graphErrors, err); }
    }
  })();
  await Promise.all([audit, drawing]);
}
