"""The live event stream of an encounter: changes announced in the transaction that makes them
(app/platform/changefeed.py), delivered after it commits and fanned out to every subscriber on every worker
(PostgreSQL LISTEN/NOTIFY, or in-process on SQLite), and stream tickets for browsers."""
