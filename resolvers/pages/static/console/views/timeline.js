// Timeline: active facts newest first, a page at a time, narrowed by session, partition, date.
// Live: when an agent writes to the scope, new facts appear at the top without a reload.

import {FACT, gql} from '../api.js';
import {field, h} from '../dom.js';
import {liveWrites} from '../live.js';
import {busy, clearErrors, dayToIso, errorSlot, factSummary, notice, showError} from '../ui.js';

const QUERY = `query ConsoleTimeline($scope: String!, $first: Int!, $after: String,
    $partition: String, $sessionId: String, $since: DateTime, $until: DateTime) {
  timeline(scope: $scope, first: $first, after: $after, partition: $partition,
      sessionId: $sessionId, since: $since, until: $until) {
    edges { cursor node { ${FACT} } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const PAGE = 20;

export async function render(main, {params, stale}, ctx) {
  const input = (name, attrs) => h('input', {name, 'data-field': name, value: params.get(name) || '', ...attrs});
  const form = h('form', {class: 'row filters', 'aria-label': 'Narrow the timeline'},
    field('Session', input('sessionId', {type: 'text'})),
    field('Partition', input('partition', {type: 'text'})),
    field('From (date)', input('since', {type: 'date'})),
    field('Until (date)', input('until', {type: 'date'})),
    h('button', {type: 'submit', class: 'primary'}, 'Show'));
  const errors = errorSlot();
  const list = h('ol', {class: 'timeline', 'aria-label': 'Facts, newest first'});
  const pager = h('nav', {class: 'pager', 'aria-label': 'Timeline pages'});
  const live = h('p', {class: 'live', role: 'status'});
  main.append(h('h1', {}, 'Timeline'), form, errors, live, list, pager);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const name of ['sessionId', 'partition', 'since', 'until']) {
      const value = form.elements[name].value.trim();
      if (value) next.set(name, value);
    }
    ctx.navigate(`#/timeline?${next}`);
  });

  const after = params.get('after');
  const back = params.getAll('back');
  const vars = {
    scope: ctx.scope,
    first: PAGE,
    after: after || null,
    partition: params.get('partition') || null,
    sessionId: params.get('sessionId') || null,
    since: dayToIso(params.get('since'), false),
    until: dayToIso(params.get('until'), true),
  };
  list.append(h('li', {}, notice('Loading…')));
  const shown = new Set();
  await busy(form, async () => {
    clearErrors(form, errors);
    try {
      const data = await gql(QUERY, vars);
      if (stale()) return;
      const {edges, pageInfo} = data.timeline;
      list.replaceChildren(...edges.map((e) => {
        shown.add(e.node.id);
        return h('li', {}, factSummary(e.node));
      }));
      if (!edges.length) list.append(h('li', {}, notice('No facts here.')));
      const link = (label, hash, rel) => h('a', {href: hash, class: 'button', rel}, label);
      const base = new URLSearchParams(params);
      if (after) {
        const prev = new URLSearchParams(base);
        prev.delete('back');
        back.slice(0, -1).forEach((b) => prev.append('back', b));
        prev.delete('after');
        if (back.length && back[back.length - 1]) prev.set('after', back[back.length - 1]);
        pager.append(link('Newer', `#/timeline?${prev}`, 'prev'));
      }
      if (pageInfo.hasNextPage && pageInfo.endCursor) {
        const next = new URLSearchParams(base);
        next.append('back', after || '');
        next.set('after', pageInfo.endCursor);
        pager.append(link('Older', `#/timeline?${next}`, 'next'));
      }
    } catch (err) {
      if (stale()) return;
      list.replaceChildren();
      showError(errors, err, form);
    }
  });
  if (stale() || after) return undefined;
  // Only the first page grows live; later pages stay as they were asked for.
  return liveWrites(ctx, (change) => {
    if (change.__typename === 'EventsDropped') {
      live.textContent = `${change.count} live updates were missed; reload to see everything.`;
      return;
    }
    const fact = change.fact;
    if (!fact) return;
    if (fact.status !== 'ACTIVE') {
      // A shown fact that was superseded or forgotten: say so where it stands.
      const card = list.querySelector(`[data-fact-id="${CSS.escape(fact.id)}"]`);
      if (card) card.closest('li').replaceChildren(factSummary(fact));
      return;
    }
    if (shown.has(fact.id)) return;
    if (vars.partition && fact.partition !== vars.partition) return;
    if (vars.sessionId && fact.sessionId !== vars.sessionId) return;
    if (vars.since && fact.validFrom < vars.since) return;
    if (vars.until && fact.validFrom > vars.until) return;
    shown.add(fact.id);
    const empty = list.querySelector('li > .notice');
    if (empty) empty.parentElement.remove();
    list.prepend(h('li', {class: 'arrived'}, factSummary(fact)));
    live.textContent = `New from ${change.actor}: "${fact.text}"`;
  }, live);
}
