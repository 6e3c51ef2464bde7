"""Scripts that drive mem0's other clients (1.x Python, JavaScript) against a live server."""
