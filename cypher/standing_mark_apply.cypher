// `factgraph mark-standing`: sets each fact's `standing` to what the patterns now read and the
// :Standing label with it ($rows: {id, standing}, standing null to clear both).
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
SET f.standing = row.standing
FOREACH (_ IN CASE WHEN row.standing IS NULL THEN [] ELSE [1] END | SET f:Standing)
FOREACH (_ IN CASE WHEN row.standing IS NULL THEN [1] ELSE [] END | REMOVE f:Standing)
