"""The ceiling for bench/load_bench.py: the smallest FastAPI endpoint that returns a small JSON document.

Served by the same uvicorn command as the service (workers, uvloop, httptools, no access log), so the
ratio of each service endpoint to this one is what the service's own code costs on top of the stack.
"""

from fastapi import FastAPI

app = FastAPI()


@app.get("/bare")
async def bare():
    return {"status": "ok", "service": "bench"}
