"""Schema types every layer shares: strict inputs, ids, names, bounded integers, the stat block (its
request fields and its columns, each declared once) and the typed reads of the resolver's documents.

Low in the layers: it imports Pydantic, SQLAlchemy's column types and app.resolver/app.platform, nothing
that serves a request."""
