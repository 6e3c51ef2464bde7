// Give every fact that has none the status label mirroring its `status`, in bounded
// transactions (an auto-commit query: graph/storage/schema.py runs it when the gap check finds any).
MATCH (f:Fact)
WHERE NOT (f:Active OR f:Quarantined OR f:Superseded OR f:Forgotten)
CALL (f) {
  SET f:$(CASE f.status WHEN 'active' THEN 'Active' WHEN 'quarantined' THEN 'Quarantined'
          WHEN 'superseded' THEN 'Superseded' WHEN 'forgotten' THEN 'Forgotten' ELSE [] END)
} IN TRANSACTIONS OF 10000 ROWS
