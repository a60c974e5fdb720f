"""After the fight: statistics counted from the stored rounds, the odds timeline with its turning points.

Every use case here reads: the stored rounds are the facts, counted by a pure module (counting.py,
turning.py) and played forward by the odds engine (app/odds). The one thing written is an odds point,
kept once computed (tables.py), and dropped with its round by the database itself when the round is undone.
"""
