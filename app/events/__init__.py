"""The live event stream of an encounter: changes published after they committed, fanned out to every
subscriber on every worker (PostgreSQL LISTEN/NOTIFY, or in-process on SQLite), and stream tickets for
browsers. Other packages publish through `EventHub.publish(Change.…)` (see hub.py)."""
