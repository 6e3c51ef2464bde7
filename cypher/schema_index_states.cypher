SHOW INDEXES YIELD name, type, state, populationPercent
WHERE type <> 'LOOKUP'
RETURN name, type, state, populationPercent
ORDER BY name
