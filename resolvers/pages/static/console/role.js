// Which role the current key has on a scope, asked of the server (`access`), so the console
// offers only what the key may do. The server still enforces every role; when asking fails
// the answer is null, every action stays offered, and refusals are shown in words.

import {gql} from './api.js';

const ACCESS = `query ConsoleAccess($scope: String) {
  access(scope: $scope) { authRequired role keyLabel canRead canWrite canReview }
}`;

/** What a server without keys means, in words: who may do what, and the setting that would
 * change it. `typed`: the person typed a key, which such a server does not read. */
export function notEnforced(typed) {
  return (typed
    ? 'The key you typed is not checked: this server does not enforce API keys. '
    : 'This server does not enforce API keys. ') +
    'It serves local callers only (it is bound to loopback and FACTGRAPH_AUTH is not "required"), ' +
    'and every one of them acts as admin. To enforce keys, start it with FACTGRAPH_AUTH=required ' +
    'and create keys with `factgraph keys create`.';
}

/**
 * {role: 'reader' | 'writer' | 'admin' | 'none' | null, note: text for the header,
 *  banner: a sentence to show under the header, or '', error?: ApiError}.
 */
export async function whoAmI(scope, typedKey) {
  try {
    const access = (await gql(ACCESS, {scope})).access;
    if (!access.canRead) {
      return {role: 'none', note: `this key may not use scope "${scope}"`, banner: ''};
    }
    const role = access.canReview ? 'admin' : access.canWrite ? 'writer' : 'reader';
    if (!access.authRequired) {
      return {role, note: `role: ${role} (keys not enforced)`, banner: notEnforced(Boolean(typedKey))};
    }
    return {role, note: `role: ${access.keyLabel ? `${access.keyLabel}: ` : ''}${role}`, banner: ''};
  } catch (err) {
    return {role: null, note: `key not accepted: ${err.message}`, banner: '', error: err};
  }
}
