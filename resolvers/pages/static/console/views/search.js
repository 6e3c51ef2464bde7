// Search: the query with its filters; each hit shows its score and what made it.

import {ApiError, FACT, gql} from '../api.js';
import {field, h, num} from '../dom.js';
import {busy, clearErrors, dayToIso, errorSlot, factSummary, notice, showError, splitList, standingBadge} from '../ui.js';

const QUERY = `query ConsoleSearch($scope: String!, $query: String!, $options: SearchOptionsInput) {
  search(scope: $scope, query: $query, options: $options) {
    lucene
    hits { score relevance fused importance recency decay
      sources { list rank score }
      fact { ${FACT} } }
    related { reason hitId fact { ${FACT} } }
    standing { similarity fact { ${FACT} } }
  }
}`;

const LIST_NAMES = {fulltext: 'full-text', vector: 'vector', passage: 'passage', graph: 'graph'};

function bar(label, value) {
  const pct = Math.max(0, Math.min(100, Math.round((value || 0) * 100)));
  return h('div', {class: 'bar'},
    h('span', {class: 'bar-label'}, label),
    h('meter', {min: 0, max: 1, value: value || 0, 'aria-label': label}),
    h('span', {class: 'bar-value'}, `${pct}%`));
}

function hitDetails(hit, related) {
  const found = hit.sources.length
    ? h('ul', {class: 'lists', 'aria-label': 'found by'}, hit.sources.map((src) =>
      h('li', {class: `list-${src.list}`},
        h('strong', {}, LIST_NAMES[src.list] || src.list), ` #${src.rank}`,
        h('span', {class: 'raw'}, ` (raw ${num(src.score)})`))))
    : h('p', {class: 'hint'}, 'found by no candidate list (a related fact)');
  const turns = related.filter((r) => r.reason === 'turn_window');
  const tags = related.filter((r) => r.reason !== 'turn_window');
  const relatedList = (title, rows) => rows.length
    ? h('details', {class: 'related', open: title === 'Turn window'},
      h('summary', {}, `${title} (${rows.length})`),
      h('ul', {}, rows.map((r) => h('li', {},
        r.fact.turn !== null && r.fact.turn !== undefined ? h('span', {class: 'turn'}, `turn ${r.fact.turn}`) : null,
        ' ', h('a', {href: `#/fact/${encodeURIComponent(r.fact.id)}`}, r.fact.text)))))
    : null;
  return h('div', {class: 'why'},
    h('p', {class: 'score'}, h('strong', {}, 'score '), h('span', {class: 'score-value'}, num(hit.score)),
      h('span', {class: 'hint'}, ` fused ${num(hit.fused)} · decay ${num(hit.decay)}`)),
    h('div', {class: 'bars'}, bar('relevance', hit.relevance), bar('importance', hit.importance),
      bar('recency', hit.recency)),
    found,
    relatedList('Turn window', turns),
    relatedList('Sharing tags', tags));
}

export async function render(main, {params, stale}, ctx) {
  const input = (name, attrs) => h('input', {name, 'data-field': name, ...attrs});
  const q = input('query', {type: 'search', value: params.get('q') || '', autocomplete: 'off'});
  const form = h('form', {class: 'search-form', 'aria-label': 'Search'},
    h('div', {class: 'row'},
      field('Query', q),
      h('button', {type: 'submit', class: 'primary'}, 'Search')),
    h('div', {class: 'row filters'},
      field('Tags (all of)', input('tags', {type: 'text', value: params.get('tags') || '', placeholder: 'a, b'})),
      field('Partition', input('partition', {type: 'text', value: params.get('partition') || ''})),
      field('As of (date)', input('asOf', {type: 'date', value: params.get('asOf') || ''})),
      field('Turn window', input('turns', {type: 'number', min: 0, max: 5, value: params.get('turns') || '1'}),
        'turns before and after each hit'),
      h('div', {class: 'field check'},
        h('input', {type: 'checkbox', id: 'include-quarantined', name: 'quarantined',
          checked: params.get('quarantined') === '1'}),
        h('label', {for: 'include-quarantined'}, 'Include quarantined'))));
  const errors = errorSlot();
  const results = h('section', {class: 'results', 'aria-label': 'Search results', 'aria-live': 'polite'});
  main.append(h('h1', {}, 'Search'), form, errors, results);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    next.set('q', q.value);
    for (const name of ['tags', 'partition', 'asOf', 'turns']) {
      const value = form.elements[name].value.trim();
      if (value) next.set(name, value);
    }
    if (form.elements.quarantined.checked) next.set('quarantined', '1');
    ctx.navigate(`#/search?${next}`);
  });

  if (!params.has('q')) {
    q.focus();
    results.append(notice('Type what you are looking for; the filters narrow it.'));
    return;
  }
  if (!params.get('q').trim()) {
    // The API answers an empty query with no hits; a person most likely pressed Enter too soon.
    showError(errors, new ApiError([{field: 'query',
      message: 'query: type what to search for; an empty query finds nothing.'}]), form);
    q.focus();
    return;
  }
  const turns = Math.max(0, Math.min(5, Number(params.get('turns') || 1) || 0));
  const asOf = dayToIso(params.get('asOf'), true);
  const options = {
    tags: splitList(params.get('tags')),
    partitions: params.get('partition') ? [params.get('partition')] : null,
    asOf,
    includeQuarantined: params.get('quarantined') === '1',
    prevTurns: turns,
    nextTurns: turns,
  };
  results.append(notice('Searching…'));
  await busy(form, async () => {
    clearErrors(form, errors);
    try {
      const data = await gql(QUERY, {scope: ctx.scope, query: params.get('q'), options});
      if (stale()) return;
      const {hits, related, standing} = data.search;
      // The standing instructions and preferences that bear on the query, above the hits: an
      // agent puts them in its prompt whatever it finds.
      // One line each, in a fold, so that the hits stay on the first screen.
      const standingList = standing.length
        ? h('details', {class: 'standing', open: true, 'aria-label': 'standing instructions and preferences'},
          h('summary', {}, `${standing.length} standing instruction${standing.length === 1 ? '' : 's'} or preference${standing.length === 1 ? '' : 's'}`),
          h('ol', {class: 'standing-list'}, standing.map((s) => h('li', {class: 'standing-item', dataset: {factId: s.fact.id}},
            standingBadge(s.fact.standing), ' ',
            h('a', {href: `#/fact/${encodeURIComponent(s.fact.id)}`, title: s.fact.text}, s.fact.text), ' ',
            h('span', {class: 'hint'}, num(s.similarity))))))
        : null;
      results.replaceChildren(standingList || '',
        h('p', {class: 'summary'}, `${hits.length} hit${hits.length === 1 ? '' : 's'} in scope `,
          h('code', {}, ctx.scope), ' · full-text query ', h('code', {}, data.search.lucene)),
        hits.length ? h('ol', {class: 'hits'}, hits.map((hit) => h('li', {class: 'hit'},
          factSummary(hit.fact, hitDetails(hit, related.filter((r) => r.hitId === hit.fact.id))))))
          : notice('Nothing found.'));
    } catch (err) {
      if (stale()) return;
      results.replaceChildren();
      showError(errors, err, form);
      q.focus();
    }
  });
}
