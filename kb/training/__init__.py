"""Judge training that remembers: trainees, practice sessions and exams kept on the server,
every answer recorded, progress by topic and format, and spaced repetition (FSRS).

The pure core (`grading`, `schedule`, `progress`) knows nothing of storage; `tables`,
`database` and `repository` are the edge over SQLAlchemy (SQLite by default, PostgreSQL by URL);
`service` joins them for the CLI, the routes and the MCP tools; `schemas` types what they return.
"""
