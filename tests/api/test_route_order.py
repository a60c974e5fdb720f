"""The routes are tried hot ones first (app/main.py): reordering them must never change which one answers."""

from __future__ import annotations

from fastapi.routing import APIRoute, iter_route_contexts

from app.main import create_app


def _routes(app) -> list[APIRoute]:
    return [c.original_route for c in iter_route_contexts(app.router.routes) if isinstance(c.original_route, APIRoute)]


def test_no_route_catches_the_path_of_a_route_after_it(settings):
    routes = _routes(create_app(settings))
    caught = [
        (earlier.path, later.path)
        for i, earlier in enumerate(routes)
        for later in routes[i + 1 :]
        if earlier.methods & later.methods and earlier.path_regex.match(later.path)
    ]
    assert caught == []


def test_the_hot_routes_come_first(settings):
    first = [(sorted(r.methods)[0], r.path) for r in _routes(create_app(settings))[:8]]
    assert ("GET", "/healthz") in first
    assert ("POST", "/v1/encounters/{encounter_id}/rounds") in first
    assert ("GET", "/v1/encounters/{encounter_id}/rounds/{number}") in first
    assert ("POST", "/v1/resolve") in first
