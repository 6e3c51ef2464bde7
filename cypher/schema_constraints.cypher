SHOW CONSTRAINTS YIELD name, type RETURN name, type ORDER BY name
