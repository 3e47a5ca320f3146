"""core.ratelimit.client_address: the client's address that every limit uses (issue 22, item 5).
X-Forwarded-For counts only when the request comes from a trusted proxy, read from the right."""

from __future__ import annotations

import doctest

import pytest
from django.test import RequestFactory

from core import ratelimit
from core.ratelimit import client_address


def request(remote: str, forwarded: str | None = None):
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return RequestFactory().get("/", REMOTE_ADDR=remote, **extra)


@pytest.fixture
def proxies(settings):
    settings.DAMA_TRUSTED_PROXIES = ["127.0.0.1", "10.0.0.0/8", "fd00::/8"]


def test_without_a_proxy_the_address_is_remote_addr(settings):
    settings.DAMA_TRUSTED_PROXIES = []
    assert client_address(request("198.51.100.7", "203.0.113.1")) == "198.51.100.7"


def test_a_trusted_proxy_passes_on_the_right_most_address_it_did_not_write_itself(proxies):
    assert client_address(request("127.0.0.1", "203.0.113.1")) == "203.0.113.1"
    # what the client wrote itself (left of what the proxy appended) is not believed
    assert client_address(request("127.0.0.1", "6.6.6.6, 203.0.113.1")) == "203.0.113.1"
    # a chain of trusted proxies is walked past
    assert client_address(request("127.0.0.1", "6.6.6.6, 203.0.113.1, 10.0.0.3")) == "203.0.113.1"


def test_an_untrusted_peer_cannot_choose_its_address(proxies):
    assert client_address(request("198.51.100.7", "10.0.0.9")) == "198.51.100.7"
    assert client_address(request("198.51.100.7", "127.0.0.1")) == "198.51.100.7"


def test_a_request_from_the_proxy_without_the_header_is_the_proxy(proxies):
    assert client_address(request("127.0.0.1")) == "127.0.0.1"
    assert client_address(request("127.0.0.1", " , ")) == "127.0.0.1"


def test_an_entry_that_is_not_an_address_stops_at_the_proxy_that_passed_it_on(proxies):
    assert client_address(request("127.0.0.1", "203.0.113.1, garbage")) == "127.0.0.1"
    assert client_address(request("127.0.0.1", "garbage, 10.0.0.2")) == "10.0.0.2"


def test_only_trusted_when_every_hop_is_a_proxy_the_left_most_is_taken(proxies):
    assert client_address(request("127.0.0.1", "10.0.0.5, 10.0.0.6")) == "10.0.0.5"


def test_an_ipv6_client_is_its_slash_64_network(proxies):
    first = client_address(request("2001:db8:1:2::1"))
    second = client_address(request("2001:db8:1:2:ffff::9"))
    assert first == second == "2001:db8:1:2::/64"
    assert client_address(request("fd00::1", "2001:db8:9:9::5")) == "2001:db8:9:9::/64"


def test_an_ipv4_mapped_address_is_the_ipv4_address(proxies):
    assert client_address(request("::ffff:127.0.0.1", "203.0.113.1")) == "203.0.113.1"
    assert client_address(request("::ffff:198.51.100.7")) == "198.51.100.7"


def test_a_missing_or_broken_remote_addr_is_unknown(proxies):
    assert client_address(request("")) == "unknown"
    assert client_address(request("not-an-ip")) == "unknown"


def test_the_examples_in_the_docstrings_run(proxies):
    failures, tried = doctest.testmod(ratelimit, optionflags=doctest.ELLIPSIS)
    assert tried >= 4 and failures == 0
