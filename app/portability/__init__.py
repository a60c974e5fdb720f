"""A campaign as one portable document: export it, import it elsewhere (a new campaign, every other id
kept), and the operators' console script (combat-admin).

One pattern: the document is untrusted on the way in. Its shape is checked by the schemas (strict, bounded),
every stored round is replayed by the resolver from its state before it, and only then are ids looked up and
everything written in one transaction. The HTTP routes and the CLI call the same functions.
"""
