// Tiny DOM builders. Every piece of data goes in as text (never innerHTML), so a fact that
// contains markup is shown as the characters it holds.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value);
    } else if (name === 'class') {
      el.setAttribute('class', value);
    } else if (name === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (name === 'value' && 'value' in el) {
      el.value = value;
    } else if (name === 'checked' && 'checked' in el) {
      el.checked = Boolean(value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h('button', {type: 'submit'}, 'Search'). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

let uid = 0;
/** A unique id for label/for and aria-describedby pairs. */
export function nextId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** A labelled input (or select / textarea) wrapped with its own error slot. */
export function field(label, input, hint) {
  const id = input.id || nextId('f');
  input.id = id;
  const error = h('span', {class: 'field-error', id: `${id}-error`, role: 'status'});
  const hintEl = hint ? h('span', {class: 'hint', id: `${id}-hint`}, hint) : null;
  input.setAttribute('aria-describedby', [hintEl ? `${id}-hint` : '', `${id}-error`].join(' ').trim());
  return h('div', {class: 'field'}, h('label', {for: id}, label), input, hintEl, error);
}

/** Clear and fill a container. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "2026-11-26 20:59:07" in the reader's time zone, to the second: facts written within one
 * minute (a supersede chain, an entity's facts, the timeline) show their order. The ISO value,
 * to the microsecond, is in the title. */
export function when(iso) {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return h('span', {}, iso);
  const pad = (n) => String(n).padStart(2, '0');
  const text = `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  return h('time', {datetime: iso, title: iso}, text);
}

/** A number with at most three decimals. */
export function num(value) {
  return typeof value === 'number' ? String(Math.round(value * 1000) / 1000) : '';
}
