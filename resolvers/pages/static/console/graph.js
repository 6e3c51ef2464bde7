// The facts around one fact, drawn as a small SVG: its entities beside it, the facts sharing
// each entity fanned out behind that entity, its supersede neighbours above and below.
// Every node is a link (keyboard-focusable) to its own page.

import {s} from './dom.js';

const W = 720;
const H = 420;

function short(text, n = 26) {
  const t = String(text || '');
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }

function nodeLink(href, x, y, kind, label, full) {
  return s('a', {href, class: `g-node g-${kind}`, 'aria-label': `${kind}: ${full}`},
    s('title', {}, full),
    kind === 'entity'
      ? s('rect', {x: x - 9, y: y - 9, width: 18, height: 18, rx: 4})
      : s('circle', {cx: x, cy: y, r: kind === 'centre' ? 14 : 9}),
    s('text', {x, y: y + (kind === 'centre' ? 30 : 24), 'text-anchor': 'middle'}, short(label)));
}

/**
 * `centre`: the fact; `refs`: its NeighbourRefs; `facts`: id -> fact for the referenced facts.
 * Returns an <svg> element.
 */
export function drawNeighbourhood(centre, refs, facts) {
  const cx = W / 2;
  const cy = H / 2;
  const edges = s('g', {class: 'g-edges'});
  const nodes = s('g', {class: 'g-nodes'});
  const entityRefs = refs.filter((r) => r.edgeType === 'MENTIONS' && r.relation !== 'shares_entity');
  const entityIds = [...new Set([...entityRefs.map((r) => r.id), ...refs.filter((r) => r.via).map((r) => r.via)])];
  const place = new Map();
  entityIds.forEach((id, i) => {
    const angle = Math.PI + (2 * Math.PI * i) / Math.max(entityIds.length, 1);
    place.set(id, {x: cx + 150 * Math.cos(angle), y: cy + 110 * Math.sin(angle), angle});
  });
  const line = (a, b, cls, label) => edges.append(s('line', {x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: cls},
    label ? s('title', {}, label) : null));
  for (const [id, p] of place) {
    const ref = entityRefs.find((r) => r.id === id);
    line({x: cx, y: cy}, p, 'g-mentions', ref ? ref.relation : 'shared entity');
  }
  // Facts sharing an entity: a fan on the far side of that entity.
  const byVia = new Map();
  for (const ref of refs.filter((r) => r.relation === 'shares_entity' && r.via && facts.has(r.id))) {
    if (!byVia.has(ref.via)) byVia.set(ref.via, []);
    if (!byVia.get(ref.via).includes(ref.id)) byVia.get(ref.via).push(ref.id);
  }
  const drawnFacts = new Set();
  for (const [via, ids] of byVia) {
    const e = place.get(via);
    if (!e) continue;
    const shown = ids.filter((id) => !drawnFacts.has(id)).slice(0, 6);
    shown.forEach((id, j) => {
      const spread = shown.length === 1 ? 0 : (j / (shown.length - 1) - 0.5) * 1.6;
      const a = e.angle + spread;
      const p = {x: clamp(e.x + 120 * Math.cos(a), 40, W - 40), y: clamp(e.y + 95 * Math.sin(a), 20, H - 40)};
      drawnFacts.add(id);
      line(e, p, 'g-shares', 'mentions');
      const f = facts.get(id);
      nodes.append(nodeLink(`#/fact/${encodeURIComponent(id)}`, p.x, p.y, 'fact', f.text, f.text));
    });
  }
  // The supersede chain's direct neighbours: older above, newer below.
  const chain = refs.filter((r) => r.edgeType === 'SUPERSEDES' && facts.has(r.id));
  chain.forEach((ref, k) => {
    const up = ref.relation === 'supersedes';
    const p = {x: cx + 40 * k, y: up ? 40 : H - 50};
    line({x: cx, y: cy}, p, 'g-supersedes', ref.relation.replace('_', ' '));
    const f = facts.get(ref.id);
    nodes.append(nodeLink(`#/fact/${encodeURIComponent(ref.id)}`, p.x, p.y, 'chain', `${ref.relation.replace('_', ' ')}: ${f.text}`, f.text));
  });
  for (const [id, p] of place) {
    const name = id.replace(/^entity:/, '');
    nodes.append(nodeLink(`#/entity/${encodeURIComponent(id)}`, p.x, p.y, 'entity', name, name));
  }
  nodes.append(nodeLink(`#/fact/${encodeURIComponent(centre.id)}`, cx, cy, 'centre', centre.text, centre.text));
  return s('svg', {viewBox: `0 0 ${W} ${H}`, class: 'graph', role: 'group',
    'aria-label': 'Facts sharing this fact\'s entities'}, edges, nodes);
}
