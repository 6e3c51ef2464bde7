// Which role the current key has on a scope, asked of the server (`access`), so the console
// offers only what the key may do. The server still enforces every role; when asking fails
// the answer is null, every action stays offered, and refusals are shown in words.

import {gql} from './api.js';

const ACCESS = `query ConsoleAccess($scope: String) {
  access(scope: $scope) { authRequired role keyLabel canRead canWrite canReview }
}`;

/** {role: 'reader' | 'writer' | 'admin' | null, note: text for the header, error?: ApiError}. */
export async function whoAmI(scope) {
  try {
    const access = (await gql(ACCESS, {scope})).access;
    if (!access.canRead) {
      return {role: 'none', note: `this key may not use scope "${scope}"`};
    }
    const role = access.canReview ? 'admin' : access.canWrite ? 'writer' : 'reader';
    const who = access.authRequired ? `${access.keyLabel ? `${access.keyLabel}: ` : ''}${role}` : `${role} (no keys on localhost)`;
    return {role, note: `role: ${who}`};
  } catch (err) {
    return {role: null, note: `key not accepted: ${err.message}`, error: err};
  }
}
