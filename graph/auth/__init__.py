"""Who may do what: roles, API keys, and the command that manages keys."""
