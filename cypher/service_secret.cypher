// The named secret, created with $value by the first replica that asks: concurrent replicas
// converge on one node through the service_secret_name constraint.
MERGE (s:ServiceSecret {name: $name})
  ON CREATE SET s.value = $value
RETURN s.value AS value
