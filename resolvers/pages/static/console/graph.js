// The facts around one fact, drawn as SVG: the fact, its entities, the facts sharing each
// entity, and its supersede neighbours, laid out left to right by dagre (vendor/, served by
// factgraph itself). Every label is a box of its own size, wrapped to the width there is, and
// dagre keeps boxes apart, so no two labels overlap; the drawing is laid out for the width it
// is shown at (a phone's too) and drawn at its real size, never scaled down. Every node is a
// link (keyboard-focusable) to its own page.

import dagre from './vendor/dagre.esm.js';
import {s} from './dom.js';

const FONT_PX = 12;
const SMALL_PX = 10.5;
const LINE = 15;
const SMALL_LINE = 13;
const PAD_X = 7;
const PAD_Y = 5;
const MAX_LINES = 8;        // a neighbour's text past this many lines ends in "…" (full text in its title)
const MAX_CENTRE_LINES = 4; // the fact itself is printed whole above the drawing
const PER_ENTITY = 8;       // facts drawn behind one entity; the rest are on the entity's page
const MIN_FACT_W = 100;
const MAX_FACT_W = 240;
const MAX_ENTITY_W = 150;

let measurer = null;

/** Width in px of `text` at `px` in the page's font. */
function measure(text, px, bold) {
  if (!measurer) measurer = document.createElement('canvas').getContext('2d');
  const family = getComputedStyle(document.documentElement).fontFamily || 'sans-serif';
  measurer.font = `${bold ? '600 ' : ''}${px}px ${family}`;
  return measurer.measureText(text).width;
}

/** `text` broken into lines no wider than `width` (a word too long for one is cut); past
 * `max` lines the last ends in "…". Returns {lines, cut}. */
export function wrap(text, width, max = MAX_LINES, px = FONT_PX, bold = false) {
  const fits = (t) => measure(t, px, bold) <= width;
  const lines = [];
  let current = '';
  const words = String(text || '').split(/\s+/).filter(Boolean);
  for (let word of words) {
    const candidate = current ? `${current} ${word}` : word;
    if (fits(candidate)) { current = candidate; continue; }
    if (current) lines.push(current);
    current = '';
    while (!fits(word)) {  // a word wider than the box: cut it where it fills a line
      let n = word.length - 1;
      while (n > 1 && !fits(word.slice(0, n))) n -= 1;
      lines.push(word.slice(0, n));
      word = word.slice(n);
    }
    current = word;
  }
  if (current) lines.push(current);
  if (lines.length <= max) return {lines, cut: false};
  const kept = lines.slice(0, max);
  let last = kept[max - 1];
  while (last && !fits(`${last}…`)) last = last.slice(0, -1);
  kept[max - 1] = `${last}…`;
  return {lines: kept, cut: true};
}

/** A node's box: its lines of text (with a smaller first line, `note`, if any). */
function box(kind, href, full, lines, note, width) {
  const height = PAD_Y * 2 + lines.length * LINE + (note ? SMALL_LINE : 0);
  return {kind, href, full, lines, note, width, height};
}

function drawNode(node, layout) {
  const x = layout.x - node.width / 2;
  const y = layout.y - node.height / 2;
  let baseline = y + PAD_Y;
  const texts = [];
  if (node.note) {
    baseline += SMALL_LINE;
    texts.push(s('text', {x: x + PAD_X, y: baseline - 3, class: 'g-note'}, node.note));
  }
  node.lines.forEach((line) => {
    baseline += LINE;
    texts.push(s('text', {x: x + PAD_X, y: baseline - 4}, line));
  });
  return s('a', {href: node.href, class: `g-node g-${node.kind}`, 'aria-label': `${node.kind === 'centre' ? 'this fact' : node.kind}: ${node.full}`},
    s('title', {}, node.full),
    s('rect', {x, y, width: node.width, height: node.height, rx: node.kind === 'entity' ? 10 : 5}),
    ...texts);
}

/**
 * `centre`: the fact; `refs`: its NeighbourRefs; `facts`: id -> fact for the referenced facts;
 * `names`: entity id -> display name; `width`: the px the drawing may take.
 * Returns an <svg> element, `width` wide or less (wider only where a box would fall below
 * its least readable width).
 */
export function drawNeighbourhood(centre, refs, facts, names, width) {
  const entityRefs = refs.filter((r) => r.edgeType === 'MENTIONS' && r.relation !== 'shares_entity');
  const entityIds = [...new Set([...entityRefs.map((r) => r.id), ...refs.filter((r) => r.via).map((r) => r.via)])];
  const chain = refs.filter((r) => r.edgeType === 'SUPERSEDES' && facts.has(r.id));
  const chainIds = new Set(chain.map((r) => r.id));
  const nameOf = (id) => names.get(id) || id.replace(/^entity:/, '');
  const roleOf = (id) => [...new Set(entityRefs.filter((r) => r.id === id).map((r) => r.relation))].join(' & ') || 'entity';

  // Column widths for three columns (the fact | its entities and versions | the facts
  // sharing an entity), so the text is laid out at the width it is shown at.
  const narrow = width < 560;
  const ranksep = narrow ? 18 : 36;
  const margin = 4;
  const inner = (w) => w - PAD_X * 2 - 2;  // 2 px to spare: canvas and SVG may differ a hair
  const entityW = Math.min(MAX_ENTITY_W, PAD_X * 2 + 2 + Math.ceil(Math.max(40,
    ...entityIds.map((id) => Math.max(measure(nameOf(id), FONT_PX, true), measure(roleOf(id), SMALL_PX))))));
  const free = width - 2 * margin - 2 * ranksep - 2 - (chain.length ? 0 : entityW);
  const factW = Math.floor(Math.max(MIN_FACT_W, Math.min(MAX_FACT_W, free / (chain.length ? 3 : 2))));

  const g = new dagre.graphlib.Graph();
  g.setGraph({rankdir: 'LR', nodesep: 8, ranksep, marginx: margin, marginy: margin});
  g.setDefaultEdgeLabel(() => ({}));
  const nodes = new Map();
  const add = (id, node) => { nodes.set(id, node); g.setNode(id, {width: node.width, height: node.height}); };
  const edges = [];
  const link = (from, to, kind, title) => { g.setEdge(from, to); edges.push({from, to, kind, title}); };

  const centreId = `fact:${centre.id}`;
  add(centreId, box('centre', `#/fact/${encodeURIComponent(centre.id)}`, centre.text,
    wrap(centre.text, inner(factW), MAX_CENTRE_LINES, FONT_PX, true).lines, 'this fact', factW));
  for (const id of entityIds) {
    const name = nameOf(id);
    add(id, box('entity', `#/entity/${encodeURIComponent(id)}`, name,
      wrap(name, inner(entityW), 2, FONT_PX, true).lines, roleOf(id), entityW));
    link(centreId, id, 'mentions', roleOf(id));
  }
  for (const ref of chain) {
    const f = facts.get(ref.id);
    const how = ref.relation.replace('_', ' ');
    add(`fact:${ref.id}`, box('chain', `#/fact/${encodeURIComponent(ref.id)}`, `${how}: ${f.text}`,
      wrap(f.text, inner(factW)).lines, how, factW));
    link(centreId, `fact:${ref.id}`, 'supersedes', how);
  }
  // Facts sharing an entity, behind that entity; one sharing two is drawn once, linked to both.
  const byVia = new Map();
  for (const ref of refs.filter((r) => r.relation === 'shares_entity' && r.via && facts.has(r.id) && !chainIds.has(r.id))) {
    if (!byVia.has(ref.via)) byVia.set(ref.via, []);
    if (!byVia.get(ref.via).includes(ref.id)) byVia.get(ref.via).push(ref.id);
  }
  for (const [via, ids] of byVia) {
    if (!nodes.has(via)) continue;
    ids.slice(0, PER_ENTITY).forEach((id) => {
      const key = `fact:${id}`;
      if (!nodes.has(key)) {
        const f = facts.get(id);
        add(key, box('fact', `#/fact/${encodeURIComponent(id)}`, f.text, wrap(f.text, inner(factW)).lines, null, factW));
      }
      link(via, key, 'shares', 'mentions');
    });
    if (ids.length > PER_ENTITY) {
      const text = `${ids.length - PER_ENTITY} more on ${nameOf(via)}'s page`;
      add(`more:${via}`, box('more', `#/entity/${encodeURIComponent(via)}`, text, wrap(text, inner(factW)).lines, null, factW));
      link(via, `more:${via}`, 'shares', 'more facts');
    }
  }
  dagre.layout(g);

  const edgeGroup = s('g', {class: 'g-edges'});
  for (const e of edges) {
    const points = g.edge(e.from, e.to).points;
    const d = points.map((p, i) => `${i ? 'L' : 'M'}${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
    edgeGroup.append(s('path', {d, class: `g-${e.kind}`}, s('title', {}, e.title)));
  }
  const nodeGroup = s('g', {class: 'g-nodes'});
  for (const [id, node] of nodes) nodeGroup.append(drawNode(node, g.node(id)));
  const {width: w, height: h} = g.graph();
  return s('svg', {viewBox: `0 0 ${Math.ceil(w)} ${Math.ceil(h)}`, width: Math.ceil(w), height: Math.ceil(h),
    class: 'graph', role: 'group', 'aria-label': 'Facts sharing this fact\'s entities'}, edgeGroup, nodeGroup);
}
