// A conversation context's two id sets; no row when the context was never written.
MATCH (c:Context {scope: $scope, id: $context_id})
RETURN c.id AS id,
       coalesce(c.recall_selected_ids, []) AS recall_selected_ids,
       coalesce(c.always_inject_ids, []) AS always_inject_ids,
       c.recalled_at AS recalled_at,
       c.updated_at AS updated_at
