"""What every HTTP transport shares: the request context, the middlewares, the OpenAPI document."""
