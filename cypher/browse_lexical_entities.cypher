// Entities whose name or an alias contains the needle (TEXT index entity_lexical), newest
// first. Their ids are 'entity:' + canonical key, the form node lookups accept.
MATCH (e:Entity)
USING TEXT INDEX e:Entity(lexical_text)
WHERE e.lexical_text CONTAINS $needle AND e.scope = $scope
WITH e, 'entity:' + e.canonical AS id
WHERE NOT id IN $exclude_ids
RETURN 'entity' AS type, id, e.name AS name, coalesce(e.aliases, []) AS aliases,
       e.created_at AS time
ORDER BY time DESC, id DESC
LIMIT $limit
