// Live updates over GraphQL subscriptions (graphql-transport-ws). Until the server offers
// them, the views work as plain pages; a reload shows what changed.

/** Call `onFact(fact)` for each fact written to the scope; returns a function that stops. */
export function liveWrites(_ctx, _onFact, _status) {
  return () => {};
}

/** Call `onChange()` whenever the scope's review queue changes; returns a stop function. */
export function liveQueue(_ctx, _onChange, _status) {
  return () => {};
}
