"""What the service tells operators: metrics, tracing spans, structured logs, health."""
