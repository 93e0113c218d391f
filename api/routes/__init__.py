"""Route groups beyond the core ones in api.app: each module has `register(app, service)`."""
