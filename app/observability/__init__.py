"""Request ids, structured logs and Prometheus metrics: what makes a request traceable and countable.

`install_observability(app, settings, pool_in_use=...)` wires all three; call it after the problem
handlers are installed (it adds the request id to the 500 answer those handlers build).
"""

from app.observability.setup import install_observability

__all__ = ["install_observability"]
