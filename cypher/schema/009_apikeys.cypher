// API keys (issue 9): looked up by id on every authenticated request.
CREATE CONSTRAINT apikey_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
