"""Cards: the card-facts table (`table`), Card nodes (`nodes`), names in text (`names`), card
search (`search`), F&L lists and card pools (`banlist`), deck checks (`deck`) and the service
that the routes, CLI and MCP tools share (`service`)."""
