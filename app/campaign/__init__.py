"""What outlives a fight: the roster (characters, which join fights linked and get their wounds back at
the end), the bestiary (creatures, copied into fights), and the campaign's house rules.

Each use case is one transaction: read the resource, check If-Match, decide, bump its version, write,
and keep the reply with its Idempotency-Key.
"""
