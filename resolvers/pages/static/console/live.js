// Live updates: GraphQL subscriptions over `graphql-transport-ws` on /graphql, the same
// endpoint and key as every query (the key goes in connection_init: a browser cannot set
// headers on a WebSocket). One socket per open view; it reconnects after a drop, waiting a
// little longer each time, and stops when the view is left.

import {FACT, session} from './api.js';

const CHANGE = `__typename
  ... on FactChange { action factId decision matchedId reason actor at queue fact { ${FACT} } }
  ... on EventsDropped { count }`;
const SCOPE_EVENTS = `subscription ConsoleScopeEvents($scope: String!) {
  scopeEvents(scope: $scope) { ${CHANGE} }
}`;
const QUEUE_EVENTS = `subscription ConsoleQueueEvents($scope: String!) {
  reviewQueueEvents(scope: $scope) { ${CHANGE} }
}`;

function socketUrl() {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/graphql`;
}

/**
 * Subscribe to `query` and call `onEvent(value)` for each event; `status` (an element) says
 * whether the view is live. Returns a function that ends the subscription.
 */
export function subscribe(query, variables, onEvent, status) {
  let socket = null;
  let stopped = false;
  let delay = 500;
  let timer = null;
  const say = (text) => { if (status) status.dataset.live = text; };

  function connect() {
    if (stopped) return;
    socket = new WebSocket(socketUrl(), 'graphql-transport-ws');
    socket.addEventListener('open', () => {
      const payload = session.key ? {Authorization: `Bearer ${session.key}`} : {};
      socket.send(JSON.stringify({type: 'connection_init', payload}));
    });
    socket.addEventListener('message', (message) => {
      let msg;
      try { msg = JSON.parse(message.data); } catch { return; }
      if (msg.type === 'connection_ack') {
        delay = 500;
        socket.send(JSON.stringify({id: '1', type: 'subscribe', payload: {query, variables}}));
        say('on');
      } else if (msg.type === 'ping') {
        socket.send(JSON.stringify({type: 'pong'}));
      } else if (msg.type === 'next' && msg.payload) {
        if (msg.payload.errors && msg.payload.errors.length) {
          say('refused');
          if (status) status.textContent = `Live updates are off: ${msg.payload.errors[0].message}`;
          return;
        }
        const value = msg.payload.data && Object.values(msg.payload.data)[0];
        if (value) onEvent(value);
      } else if (msg.type === 'error') {
        stopped = true;
        say('refused');
        const first = Array.isArray(msg.payload) && msg.payload[0];
        if (status) status.textContent = `Live updates are off: ${first ? first.message : 'refused'}`;
        socket.close(1000);
      }
    });
    socket.addEventListener('close', (event) => {
      if (stopped) return;
      say('off');
      if (event.code === 4403 || event.code === 4401) {
        if (status) status.textContent = 'Live updates are off: the key was not accepted.';
        return;
      }
      timer = setTimeout(connect, delay);
      delay = Math.min(delay * 2, 15000);
    });
  }
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (socket && socket.readyState <= 1) {
      try { socket.send(JSON.stringify({id: '1', type: 'complete'})); } catch { /* closing */ }
      socket.close(1000);
    }
  };
}

/** Each change of a fact in the scope (FactChange or EventsDropped). */
export function liveWrites(ctx, onEvent, status) {
  return subscribe(SCOPE_EVENTS, {scope: ctx.scope}, onEvent, status);
}

/** Facts entering and leaving the scope's review queue. */
export function liveQueue(ctx, onEvent, status) {
  return subscribe(QUEUE_EVENTS, {scope: ctx.scope}, onEvent, status);
}
