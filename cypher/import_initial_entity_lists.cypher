// `import --initial` (graph/bulk/initial.py): the empty lists of imported entities
// (`aliases: []`), which the offline importer's typed CSV columns cannot carry.
// $rows: [{scope, canonical, key}].
UNWIND $rows AS r
MATCH (e:Entity {scope: r.scope, canonical: r.canonical})
SET e[r.key] = []
