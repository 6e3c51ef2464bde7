// Secrets every replica of the service shares, created once by whichever starts first
// (cypher/service_secret.cypher): the key that signs the bookmarks handed to clients.
CREATE CONSTRAINT service_secret_name IF NOT EXISTS FOR (s:ServiceSecret) REQUIRE s.name IS UNIQUE;
