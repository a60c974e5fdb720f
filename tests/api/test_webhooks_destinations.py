"""Where webhooks may go (SSRF): every address range the rules refuse, checked when subscribing and again at
every connection (the address connected to is the one checked), no redirects followed.

No test here opens a connection outside 127.0.0.0/8, even if the code is wrong: names resolve through stub
resolvers, and deliveries to anything but the local receiver go through a transport that only records the
attempt and fails it."""

from __future__ import annotations

import pytest

from app.webhooks.destinations import networks, refusal
from tests.api.helpers import assert_problem
from tests.api.test_webhooks import hook_settings, hooked, subscribe  # noqa: F401 (fixtures)
from tests.api.webhook_support import NoConnections, Receiver, serving, stub_resolver, wait_for

REFUSED = [
    ("127.0.0.1", "loopback"),
    ("10.1.2.3", "private"),
    ("172.16.0.1", "private"),
    ("192.168.1.1", "private"),
    ("169.254.169.254", "link-local"),  # the cloud metadata address
    ("100.64.0.1", "shared"),
    ("224.0.0.1", "multicast"),
    ("0.0.0.0", "unspecified"),
    ("240.0.0.1", "reserved"),
    ("192.0.2.1", "documentation"),
    ("198.51.100.7", "documentation"),
    ("::1", "loopback"),
    ("fc00::1", "private"),
    ("fd12:3456::1", "private"),
    ("fe80::1", "link-local"),
    ("ff02::1", "multicast"),
    ("::", "unspecified"),
    ("2001:db8::1", "documentation"),
    ("::ffff:10.0.0.1", "private"),  # IPv4-mapped
    ("::ffff:127.0.0.1", "loopback"),
    ("::ffff:169.254.169.254", "link-local"),
    ("::10.0.0.1", "private"),  # IPv4-compatible
    ("2002:a00:1::", "private"),  # 6to4 of 10.0.0.1
]


@pytest.mark.parametrize(("address", "kind"), REFUSED)
def test_every_range_that_is_not_public_unicast_is_refused(address, kind):
    why = refusal(address, ())
    assert why is not None and kind in why


@pytest.mark.parametrize("address", ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111", "::ffff:93.184.216.34"])
def test_public_unicast_addresses_pass(address):
    assert refusal(address, ()) is None


def test_the_allowed_networks_let_their_addresses_through_in_any_form():
    allowed = networks(["10.0.0.0/8", "fd00::/8"])
    assert refusal("10.1.2.3", allowed) is None
    assert refusal("::ffff:10.1.2.3", allowed) is None
    assert refusal("fd12::1", allowed) is None
    assert refusal("192.168.0.1", allowed) is not None


@pytest.mark.parametrize(
    ("answers", "why"),
    [
        (["10.0.0.7"], "private"),
        (["93.184.216.34", "169.254.169.254"], "link-local"),  # one bad answer among good ones
        (["::ffff:192.168.0.1"], "private"),
    ],
)
def test_a_name_that_resolves_inside_is_refused_when_subscribing(hooked, answers, why):  # noqa: F811
    hooked.app.state.webhooks.resolver = stub_resolver({"hooks.example": answers})
    found = assert_problem(
        hooked.post("/v1/webhooks", json={"url": "https://hooks.example/x"}), 422, "webhook-destination-refused"
    )
    assert why in found["detail"] and "hooks.example" in found["detail"]
    assert hooked.get("/v1/webhooks").json() == []


def test_unknown_names_and_plain_http_outside_the_allowed_networks_are_refused(hooked):  # noqa: F811
    hooked.app.state.webhooks.resolver = stub_resolver({"public.example": ["93.184.216.34"]})
    for url, why in (("https://nowhere.example/x", "does not resolve"), ("http://public.example/x", "use https")):
        found = assert_problem(hooked.post("/v1/webhooks", json={"url": url}), 422, "webhook-destination-refused")
        assert why in found["detail"]


def test_every_connection_checks_the_address_it_connects_to(hooked):  # noqa: F811
    """A name that resolved to a public address when subscribing and to a private one later (DNS rebinding)
    is refused at the connection; while it stays public, the transport is handed that very address."""
    answers = {"rebind.example": ["93.184.216.34"]}
    deliveries = hooked.app.state.webhooks
    deliveries.resolver = stub_resolver(answers)
    deliveries.transport = nowhere = NoConnections()
    hook = subscribe(hooked, "https://rebind.example/hook")
    answers["rebind.example"] = ["10.0.0.7"]
    hooked.post(f"/v1/webhooks/{hook['id']}/ping")
    log = f"/v1/webhooks/{hook['id']}/deliveries"
    last = wait_for(lambda: hooked.get(log).json()["items"][0]["last_attempt"], "the refused attempt")
    assert "10.0.0.7 is a private address" in last["error"] and nowhere.attempts == []
    answers["rebind.example"] = ["93.184.216.34"]
    hooked.post(f"/v1/webhooks/{hook['id']}/ping")
    wait_for(lambda: nowhere.attempts, "the attempt through the transport")
    assert nowhere.attempts[0] == "https://93.184.216.34/hook"  # the checked address itself, not the name


def test_redirects_are_not_followed(hooked):  # noqa: F811
    with serving(Receiver(answer=lambda _r: (302, b"", {"location": "http://10.0.0.7/inside"}))) as receiver:
        hook = subscribe(hooked, receiver.url, events=["ping"])
        hooked.post(f"/v1/webhooks/{hook['id']}/ping")
        log = f"/v1/webhooks/{hook['id']}/deliveries"
        last = wait_for(lambda: hooked.get(log).json()["items"][0]["last_attempt"], "the attempt")
        assert last["status_code"] == 302 and hooked.get(log).json()["items"][0]["status"] == "pending"
        assert all(r.path == "/" for r in receiver.received)
