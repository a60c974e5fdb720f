"""Webhooks: a campaign's events pushed to where the players are (any receiver, signed per Standard Webhooks,
or a Discord channel), through a transactional outbox delivered by the worker's dispatcher.

The pattern: a change records its events in its own transaction (outbox.py, hooked into the changefeed);
the dispatcher's job (delivery.py) claims them in order (queue.py), renders them for the subscription
(render.py, discord.py), sends them to a checked destination (destinations.py) and settles each attempt.
Subscriptions and the delivery log are plain use cases (subscriptions.py) behind api.py.
"""
