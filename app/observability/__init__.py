"""Request ids, structured logs and Prometheus metrics: what makes a request traceable and countable.

`install_observability(app, settings, pool_in_use=..., watch_pool=...)` wires all three; call it after
the problem handlers are installed (it adds the request id to the 500 answer those handlers build).
Call `mark_worker_dead()` at the end of the worker's lifespan (multiprocess metrics, multiprocess.py).
"""

from app.observability.multiprocess import mark_worker_dead
from app.observability.setup import install_observability

__all__ = ["install_observability", "mark_worker_dead"]
