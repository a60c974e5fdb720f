"""Request ids, structured logs and Prometheus metrics: what makes a request traceable and countable.

`install_observability(app, settings, pool_in_use=..., watch_pool=...)` sets up the logs and the metrics
and returns what the edge records into; call it after the problem handlers are installed (it adds the
request id to the 500 answer those handlers build). `Edge` (edge.py) is the middleware.
Call `mark_worker_dead()` at the end of the worker's lifespan (multiprocess metrics, multiprocess.py).
"""

from app.observability.edge import Edge, cors_options
from app.observability.logs import AccessLog
from app.observability.multiprocess import mark_worker_dead
from app.observability.setup import install_observability

__all__ = ["AccessLog", "Edge", "cors_options", "install_observability", "mark_worker_dead"]
