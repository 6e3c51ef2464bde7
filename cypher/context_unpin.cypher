// Drop facts from a context's always-inject set; unpinning what is not pinned changes nothing.
MATCH (c:Context {scope: $scope, id: $context_id})
SET c.always_inject_ids = [x IN coalesce(c.always_inject_ids, []) WHERE NOT x IN $ids],
    c.updated_at = $now
RETURN c.id AS id,
       coalesce(c.recall_selected_ids, []) AS recall_selected_ids,
       c.always_inject_ids AS always_inject_ids,
       c.recalled_at AS recalled_at,
       c.updated_at AS updated_at
