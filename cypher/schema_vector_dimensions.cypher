SHOW INDEXES YIELD name, type, options
WHERE name = 'fact_embedding'
RETURN options.indexConfig['vector.dimensions'] AS dimensions
