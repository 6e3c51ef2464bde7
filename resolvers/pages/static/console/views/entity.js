// An entity's page: its names, and the facts that mention it over time (newest first).

import {factsByIds, gql} from '../api.js';
import {h, when} from '../dom.js';
import {errorSlot, notice, showError, statusBadge} from '../ui.js';

const NODE = `query ConsoleEntity($scope: String!, $id: ID!) {
  node(scope: $scope, id: $id, limit: 100) {
    id entity { id canonical name aliases type createdAt }
    neighbours { id edgeType relation }
  }
}`;

export async function render(main, {arg, stale}, ctx) {
  const errors = errorSlot();
  const title = h('h1', {}, 'Entity');
  const loading = notice('Loading…');
  main.append(title, errors, loading);
  try {
    const node = (await gql(NODE, {scope: ctx.scope, id: arg})).node;
    if (stale()) return;
    if (!node || !node.entity) {
      loading.remove();
      showError(errors, new Error(`No entity with id "${arg}" in scope "${ctx.scope}".`));
      return;
    }
    const entity = node.entity;
    title.textContent = `Entity: ${entity.name}`;
    const roleOf = new Map(node.neighbours.map((r) => [r.id, r.relation]));
    const rows = await factsByIds(ctx.scope, [...roleOf.keys()], {chains: true});
    // Retired rows of a chain mention the entity in the same role as the live fact.
    for (const [id, [, via]] of rows) if (!roleOf.has(id)) roleOf.set(id, roleOf.get(via));
    const facts = [...rows.values()].map(([fact]) => fact);
    if (stale()) return;
    loading.remove();
    facts.sort((a, b) => (a.validFrom < b.validFrom ? 1 : a.validFrom > b.validFrom ? -1 : 0));
    main.append(
      h('section', {class: 'panel', 'aria-label': 'Names'},
        h('dl', {class: 'props'},
          h('dt', {}, 'Canonical'), h('dd', {}, h('code', {}, entity.canonical)),
          entity.aliases.length ? [h('dt', {}, 'Aliases'), h('dd', {}, entity.aliases.join(', '))] : null,
          entity.type ? [h('dt', {}, 'Type'), h('dd', {}, entity.type)] : null,
          entity.createdAt ? [h('dt', {}, 'First seen'), h('dd', {}, when(entity.createdAt))] : null)),
      h('section', {class: 'panel', 'aria-labelledby': 'entity-facts'},
        h('h2', {id: 'entity-facts'}, `Facts over time (${facts.length})`),
        facts.length ? h('ol', {class: 'chain'}, facts.map((f) => h('li', {},
          h('span', {class: 'dot', 'aria-hidden': 'true'}),
          h('div', {},
            h('p', {class: 'meta'}, when(f.validFrom), ' → ', f.validTo ? when(f.validTo) : 'now', ' ',
              statusBadge(f.status), ' ', h('span', {class: 'hint'}, `as ${roleOf.get(f.id)}`)),
            h('a', {href: `#/fact/${encodeURIComponent(f.id)}`}, f.text)))))
          : notice('No facts mention it.')));
  } catch (err) {
    loading.remove();
    if (!stale()) showError(errors, err);
  }
}
