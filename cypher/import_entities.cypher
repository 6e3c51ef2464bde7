// Restore exported entities exactly (name, aliases, type, lexical_text, created_at): an export
// lists them after the facts, so this runs after the facts' own linking and has the last word.
UNWIND $entities AS ent
MERGE (e:Entity {scope: ent.scope, canonical: ent.canonical})
  ON CREATE SET e.created_at = $now
SET e += ent.props
RETURN count(e) AS restored
