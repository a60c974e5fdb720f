"""Issue 12: a page on another origin subscribes with EventSource and a ticket, and sees a round land."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.browser.conftest import TableServer, free_port
from tests.browser.fight import Fight, wait_for

PAGE_FOLDER = Path(__file__).resolve().parent / "other_origin"
DEADLINE = 1.0  # CONTRACT.md: an event reaches every subscriber within a second


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the standard library's signature)
        pass


def serve_folder(port: int) -> ThreadingHTTPServer:
    httpd = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietHandler, directory=str(PAGE_FOLDER)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture
def origins(clean_database) -> Iterator[tuple[TableServer, str, str]]:
    """The service, an origin it allows, and one it does not."""
    allowed_port = free_port()
    refused_port = free_port({allowed_port})
    allowed, refused = serve_folder(allowed_port), serve_folder(refused_port)
    allowed_origin = f"http://127.0.0.1:{allowed_port}"
    service_port = free_port({allowed_port, refused_port})
    try:
        with TableServer(clean_database, port=service_port, CORS_ORIGINS=f'["{allowed_origin}"]') as service:
            yield service, allowed_origin, f"http://127.0.0.1:{refused_port}"
    finally:
        for httpd in (allowed, refused):
            httpd.shutdown()
            httpd.server_close()


def test_a_page_on_another_origin_sees_a_round_the_moment_it_is_posted(browser, origins):
    service, allowed_origin, refused_origin = origins
    fight = Fight.start(service.url)
    viewer = fight.token("viewer")
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{allowed_origin}/index.html#api={service.url}&encounter={fight.id}&ticket={fight.ticket(viewer)}")
    wait_for(lambda: page.locator("#state").inner_text().startswith("synced"), deadline=20,
             what="the stream open and synced")

    posted = fight.round(seed=21)
    took = wait_for(lambda: page.locator("#rounds li").all_inner_texts(), deadline=DEADLINE,
                    what="the round on the other origin's page")
    print(f"\nround on the other origin's page {took * 1000:.0f} ms after the POST answered")
    assert page.locator("#rounds li").all_inner_texts() == [f"round 1: {len(posted['actions'])} actions"]
    assert errors == []

    # An origin that CORS_ORIGINS does not list cannot read the stream, ticket or not.
    refused = context.new_page()
    refused.goto(f"{refused_origin}/index.html#api={service.url}&encounter={fight.id}&ticket={fight.ticket(viewer)}")
    wait_for(lambda: refused.locator("#state").inner_text() == "error", deadline=20,
             what="the refused origin's stream failing")
    fight.round(seed=22)
    assert refused.locator("#rounds li").count() == 0
    context.close()
