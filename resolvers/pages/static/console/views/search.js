// Search: the query with its filters; each hit shows its score and the parts it is made of,
// with the sum written out so that a person can add them up; or the thread of the query's
// topic, in the order it was said.

import {ApiError, FACT, gql} from '../api.js';
import {field, h, num} from '../dom.js';
import {busy, clearErrors, dayToIso, errorSlot, factSummary, notice, showError, splitList, standingBadge} from '../ui.js';

const QUERY = `query ConsoleSearch($scope: String!, $query: String!, $options: SearchOptionsInput) {
  search(scope: $scope, query: $query, options: $options) {
    lucene
    hits { score relevance fused share importance recency decay updates
      sources { list rank score }
      fact { ${FACT} } }
    weights { relevance importance recency }
    related { reason hitId fact { ${FACT} } }
    standing { similarity fact { ${FACT} } }
  }
}`;

const LIST_NAMES = {fulltext: 'full-text', vector: 'vector', passage: 'passage', graph: 'graph'};

function bar(label, value, cls) {
  const pct = Math.max(0, Math.min(100, Math.round((value || 0) * 100)));
  return h('div', {class: `bar ${cls || ''}`.trim()},
    h('span', {class: 'bar-label'}, label),
    h('meter', {min: 0, max: 1, value: value || 0, 'aria-label': label}),
    h('span', {class: 'bar-value'}, num(value)));
}

/** score = (w1 * share + w2 * importance + w3 * recency) / (w1 + w2 + w3) * decay, written
 * out with this hit's numbers (each rounded as shown, so the sum is good to about 0.001). */
function scoreSum(hit, weights) {
  const parts = [[weights.relevance, hit.share], [weights.importance, hit.importance],
    [weights.recency, hit.recency]];
  const total = weights.relevance + weights.importance + weights.recency;
  const terms = parts.filter(([w]) => w !== 0)
    .map(([w, value]) => (w === 1 ? num(value) : `${num(w)} × ${num(value)}`));
  const own = parts.reduce((acc, [w, value]) => acc + w * value, 0) / total * hit.decay;
  return {
    text: `(${terms.join(' + ')}) / ${num(total)}${hit.decay === 1 ? '' : ` × ${num(hit.decay)}`} = ${num(own)}`,
    own,
  };
}

/** How a score is made, once above the hits: each hit then shows its own parts and sum. */
function legend(weights, thread) {
  const same = weights.relevance === weights.importance && weights.importance === weights.recency;
  return h('details', {class: 'legend', open: true},
    h('summary', {}, 'How a score is made: ', same
      ? 'the mean of three parts'
      : `the mean of three parts weighted ${num(weights.relevance)} / ${num(weights.importance)} / ${num(weights.recency)}`,
    thread ? ' (a thread is listed in the order said, not by score)' : ', best first'),
    h('dl', {},
      h('dt', {}, 'fused share'),
      h('dd', {}, 'how well the candidate lists (full-text, vector, passage, graph) ranked the fact: its fused '
        + 'score as a share of the best in this search, plus a boost where the query names its subject.'),
      h('dt', {}, 'importance'), h('dd', {}, 'its importance, 0 to 10, divided by 10.'),
      h('dt', {}, 'recency'), h('dd', {}, '1 for a fact used just now, fading while it is not used.'),
      h('dt', {}, 'relevance'),
      h('dd', {}, 'shown apart, not in the score: the chance that the fact answers the query, read from the fact '
        + 'and the query alone; a minimum score compares it.')));
}

function hitDetails(hit, related, weights, byId) {
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
  const sum = scoreSum(hit, weights);
  const older = hit.updates ? byId.get(hit.updates) : null;
  // The newer-first rule moved this hit above the older one it updates and gave it that
  // hit's score: its own parts make less, and the page says so rather than hide it.
  const moved = hit.updates
    ? h('p', {class: 'moved'}, 'Newer first: placed above ',
      h('a', {href: `#/fact/${encodeURIComponent(hit.updates)}`}, older ? older.text : 'the fact it updates'),
      `, which it updates (a later statement of the same subject that says what changed), with its score ${num(hit.score)}.`)
    : null;
  return h('div', {class: 'why'},
    h('p', {class: 'score'}, h('strong', {}, 'score '), h('span', {class: 'score-value'}, num(hit.score))),
    h('div', {class: 'parts', role: 'group', 'aria-label': 'what the score is made of'},
      h('div', {class: 'bars'},
        bar('fused share', hit.share, 'part'), bar('importance', hit.importance, 'part'),
        bar('recency', hit.recency, 'part')),
      h('p', {class: 'sum'}, h('span', {class: 'visually-hidden'}, 'score '),
        h('code', {}, sum.text), moved ? ' from its own parts' : '',
        h('span', {class: 'hint'}, ` · fused ${num(hit.fused)}`)),
      moved),
    h('div', {class: 'apart'},
      bar('relevance', hit.relevance, 'relevance'),
      h('span', {class: 'hint'}, 'not in the score')),
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
        h('label', {for: 'include-quarantined'}, 'Include quarantined')),
      h('div', {class: 'field check'},
        h('input', {type: 'checkbox', id: 'thread', name: 'thread', checked: params.get('thread') === '1',
          title: 'The facts that bear on the topic most, from a deeper pool, oldest first'}),
        h('label', {for: 'thread'}, 'Thread, in the order said'))));
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
    if (form.elements.thread.checked) next.set('thread', '1');
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
    thread: params.get('thread') === '1',
  };
  results.append(notice('Searching…'));
  await busy(form, async () => {
    clearErrors(form, errors);
    try {
      const data = await gql(QUERY, {scope: ctx.scope, query: params.get('q'), options});
      if (stale()) return;
      const {hits, related, standing, weights} = data.search;
      const byId = new Map(hits.map((hit) => [hit.fact.id, hit.fact]));
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
      const what = options.thread
        ? `${hits.length} fact${hits.length === 1 ? '' : 's'} of the thread, in the order said (oldest first), in scope `
        : `${hits.length} hit${hits.length === 1 ? '' : 's'}, best first, in scope `;
      results.replaceChildren(standingList || '',
        h('p', {class: 'summary'}, what,
          h('code', {}, ctx.scope), ' · full-text query ', h('code', {}, data.search.lucene)),
        hits.length ? legend(weights, options.thread) : null,
        hits.length ? h('ol', {class: options.thread ? 'hits thread' : 'hits'}, hits.map((hit) => h('li', {class: 'hit'},
          factSummary(hit.fact, hitDetails(hit, related.filter((r) => r.hitId === hit.fact.id), weights, byId)))))
          : notice('Nothing found.'));
    } catch (err) {
      if (stale()) return;
      results.replaceChildren();
      showError(errors, err, form);
      q.focus();
    }
  });
}
