// Add facts to a context's always-inject set, keeping the order they were first pinned in.
MERGE (c:Context {scope: $scope, id: $context_id})
  ON CREATE SET c.created_at = $now, c.recall_selected_ids = []
WITH c, coalesce(c.always_inject_ids, []) AS held
SET c.always_inject_ids = held + [x IN $ids WHERE NOT x IN held],
    c.updated_at = $now
RETURN c.id AS id,
       coalesce(c.recall_selected_ids, []) AS recall_selected_ids,
       c.always_inject_ids AS always_inject_ids,
       c.recalled_at AS recalled_at,
       c.updated_at AS updated_at
