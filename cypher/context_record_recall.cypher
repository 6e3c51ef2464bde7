// Remember which facts a search handed to a conversation context: the last selection replaces
// the previous one (what the agent holds now), pins are left alone. The only write of browsing.
MERGE (c:Context {scope: $scope, id: $context_id})
  ON CREATE SET c.created_at = $now, c.always_inject_ids = []
SET c.recall_selected_ids = $ids,
    c.recalled_at = $now,
    c.updated_at = $now
RETURN c.id AS id
