// `import --initial` (graph/bulk/initial.py): the empty lists of imported facts (`tags: []`),
// which the offline importer's typed CSV columns cannot carry. $rows: [{id, key}].
UNWIND $rows AS r
MATCH (f:Fact {id: r.id})
SET f[r.key] = []
