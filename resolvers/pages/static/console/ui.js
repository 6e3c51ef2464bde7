// Pieces several views share: the error slot, a fact's summary, the status badge, forms.

import {ApiError} from './api.js';
import {fill, h, when} from './dom.js';

/** A live region for the errors of one form or section; stays empty until something fails. */
export function errorSlot() {
  return h('div', {class: 'error', role: 'alert', 'aria-live': 'assertive'});
}

/** Show an error in words in `slot`; a field the server names is marked next to its input. */
export function showError(slot, err, form) {
  const problems = err instanceof ApiError ? err.problems : [{message: String(err.message || err)}];
  if (form) clearErrors(form);
  fill(slot, problems.length === 1
    ? problems[0].message
    : h('ul', {}, problems.map((p) => h('li', {}, p.message))));
  slot.classList.add('shown');
  if (form) {
    for (const problem of problems) {
      if (!problem.field) continue;
      const input = form.querySelector(`[data-field="${CSS.escape(problem.field)}"]`);
      if (!input) continue;
      input.setAttribute('aria-invalid', 'true');
      const own = document.getElementById(`${input.id}-error`);
      if (own) own.textContent = problem.message;
    }
  }
}

export function clearErrors(form, slot) {
  if (slot) { slot.replaceChildren(); slot.classList.remove('shown'); }
  for (const input of form.querySelectorAll('[aria-invalid]')) {
    input.removeAttribute('aria-invalid');
    const own = document.getElementById(`${input.id}-error`);
    if (own) own.textContent = '';
  }
}

export function notice(text) {
  return h('p', {class: 'notice', role: 'status'}, text);
}

export function statusBadge(status) {
  return h('span', {class: `badge status-${String(status).toLowerCase()}`}, String(status).toLowerCase());
}

/** A standing instruction or preference: it holds for later answers until revoked. */
export function standingBadge(kind) {
  const name = String(kind).toLowerCase();
  return h('span', {class: `badge standing-${name}`, title: `standing ${name}`}, `standing ${name}`);
}

/** Subject / predicate / object; `entities` ({subject, object} -> entity id) links them. */
export function triple(fact, entities = {}) {
  if (!fact.subject && !fact.predicate && !fact.object) return null;
  const part = (label, value, entityId) => h('span', {class: 'spo-part'},
    h('span', {class: 'spo-label'}, label), ' ',
    value && entityId ? h('a', {href: `#/entity/${encodeURIComponent(entityId)}`}, value) : (value || '—'));
  return h('p', {class: 'spo'},
    part('subject', fact.subject, entities.subject), part('predicate', fact.predicate, null),
    part('object', fact.object, entities.object));
}

export function tagList(tags) {
  if (!tags || !tags.length) return null;
  return h('ul', {class: 'tags', 'aria-label': 'tags'}, tags.map((t) => h('li', {}, t)));
}

/** One fact as a list row: text linking to its page, status, s/p/o, tags, times. */
export function factSummary(fact, extra) {
  return h('article', {class: 'fact-card', dataset: {factId: fact.id}},
    h('h3', {class: 'fact-text'}, h('a', {href: `#/fact/${encodeURIComponent(fact.id)}`}, fact.text)),
    h('p', {class: 'meta'},
      statusBadge(fact.status), ' ',
      fact.standing ? [standingBadge(fact.standing), ' '] : null,
      h('span', {}, 'partition ', h('code', {}, fact.partition)), ' · ',
      h('span', {}, 'valid from ', when(fact.validFrom)),
      fact.sessionId ? [' · session ', h('code', {}, fact.sessionId)] : null,
      fact.turn !== null && fact.turn !== undefined ? [' · turn ', String(fact.turn)] : null),
    triple(fact), tagList(fact.tags), extra || null);
}

/** Read a form's named controls into an object ('' for empty text, booleans for checkboxes). */
export function formValues(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    out[el.name] = el.type === 'checkbox' ? el.checked : el.value.trim();
  }
  return out;
}

/** "a, b ,c" -> ["a", "b", "c"]; null when empty. */
export function splitList(text) {
  const items = String(text || '').split(',').map((t) => t.trim()).filter(Boolean);
  return items.length ? items : null;
}

/** A yyyy-mm-dd date input value -> ISO datetime at the end (or start) of that UTC day. */
export function dayToIso(day, endOfDay) {
  if (!day) return null;
  return endOfDay ? `${day}T23:59:59.999Z` : `${day}T00:00:00Z`;
}

/** Disable a form's buttons while a call runs, so a double click sends one request. */
export async function busy(form, work) {
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach((b) => { b.disabled = true; });
  form.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
    form.removeAttribute('aria-busy');
  }
}

/**
 * A modal confirmation naming what will happen; resolves to the reason typed, or null.
 * Uses the native <dialog>, so focus is trapped and Escape cancels.
 */
export function confirmDialog({title, body, action, reasonLabel, reasonDefault, danger}) {
  return new Promise((resolve) => {
    const reason = h('input', {type: 'text', name: 'reason', id: 'confirm-reason', required: true,
      value: reasonDefault || ''});
    const dialog = h('dialog', {class: 'confirm', 'aria-labelledby': 'confirm-title'},
      h('form', {method: 'dialog'},
        h('h2', {id: 'confirm-title'}, title),
        body,
        h('div', {class: 'field'}, h('label', {for: 'confirm-reason'}, reasonLabel || 'Reason'), reason),
        h('div', {class: 'actions'},
          h('button', {type: 'submit', value: 'ok', class: danger ? 'danger' : 'primary'}, action),
          h('button', {type: 'submit', value: 'cancel', formnovalidate: true}, 'Cancel'))));
    dialog.addEventListener('close', () => {
      const ok = dialog.returnValue === 'ok' && reason.value.trim();
      dialog.remove();
      resolve(ok ? reason.value.trim() : null);
    });
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  });
}
