"""HTTP on top of everything: replies, ETags, conditional and paging parameters, problem+json, the
OpenAPI document and its pages, the Idempotency-Key dependency.

Only routers, FastAPI dependencies and composition (app/main.py) import this package; use cases return
results and raise domain errors (app/platform/errors.py), which the handlers here render."""
