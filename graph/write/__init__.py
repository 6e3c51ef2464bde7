"""The write path: what a fact is, checking it, deciding on it (one by one or in batches),
what gets indexed, and the events live subscribers are told of."""
