"""Outbound calls to user-given URLs: address checks, one resolution, no
redirects, one total deadline; each probe is a real local HTTP server, and
each refusal has a control showing the same receiver answers when allowed."""

from __future__ import annotations

import ipaddress

import pytest

from web_ui.errors import OutboundRefusedError
from web_ui.outbound import DeliveryError, OutboundPolicy, post, refused_address

from .receivers import receiver, resolving

LOCAL = OutboundPolicy(allow_http=True, allow_private=True)  # what the probes need to be reached
HTTP_ONLY = OutboundPolicy(allow_http=True)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
    "224.0.0.1", "240.0.0.1", "255.255.255.255", "0.0.0.0", "192.0.2.1", "198.18.0.1",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "ff02::1", "::ffff:127.0.0.1",
    "::ffff:8.8.8.8", "::127.0.0.1", "2002:7f00:1::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "2001:db8::1",
])
def test_private_and_special_addresses_are_refused(address):
    assert refused_address(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"])
def test_public_addresses_are_allowed(address):  # the control: the check can say yes
    assert refused_address(ipaddress.ip_address(address)) is None


def test_a_loopback_receiver_is_never_called():
    with receiver() as (url, seen):
        with pytest.raises(OutboundRefusedError, match="127.0.0.1"):
            post(url, b"{}", {}, policy=HTTP_ONLY, deadline_s=5)
        assert seen.requests == []
        assert post(url, b"{}", {}, policy=LOCAL, deadline_s=5) == 204  # control
        assert len(seen.requests) == 1


def test_a_name_that_resolves_to_a_private_address_is_refused(monkeypatch):
    resolving(monkeypatch, {"hook.example": ["10.0.0.7"]})
    with pytest.raises(OutboundRefusedError, match="10.0.0.7"):
        post("http://hook.example/x", b"{}", {}, policy=HTTP_ONLY, deadline_s=5)


def test_a_name_with_one_private_address_among_public_ones_is_refused(monkeypatch):
    import socket

    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *a, **k: [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("8.8.8.8", port)),
        (socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::ffff:169.254.169.254", port, 0, 0))])
    with pytest.raises(OutboundRefusedError, match="IPv4-mapped"):
        post("https://hook.example/x", b"{}", {}, policy=OutboundPolicy(), deadline_s=5)


def test_the_checked_address_is_the_one_connected_to(monkeypatch):
    """DNS rebinding: the name answers the receiver first, another address
    after; the request reaches the receiver, with the name as Host, after one
    resolution."""
    with receiver() as (url, seen):
        port = url.split(":")[2].split("/")[0]
        asked = resolving(monkeypatch, {"hook.example": ["127.0.0.1", "10.255.255.1"]})
        status = post(f"http://hook.example:{port}/hook", b"{}", {}, policy=LOCAL, deadline_s=5)
        assert status == 204
        assert asked == ["hook.example"]
        assert seen.requests[0][2]["host"] == f"hook.example:{port}"


@pytest.mark.parametrize("url", ["http://8.8.8.8/hook", "ftp://8.8.8.8/x", "file:///etc/passwd",
                                 "https://user:pw@8.8.8.8/x", "https:///nohost"])
def test_only_https_urls_are_called_by_default(url):
    with pytest.raises(OutboundRefusedError):
        post(url, b"{}", {}, policy=OutboundPolicy(), deadline_s=5)


def test_a_redirect_is_an_answer_never_followed():
    with receiver() as (target, reached):
        metadata = target.replace("/hook", "/latest/meta-data/")
        with receiver(status=302, location=metadata) as (url, seen):
            assert post(url, b"{}", {"X-Sig": "s"}, policy=LOCAL, deadline_s=5) == 302
        with receiver(status=307, location="ftp://127.0.0.1:21/") as (url, _):
            assert post(url, b"{}", {}, policy=LOCAL, deadline_s=5) == 307
        assert reached.requests == []
        assert post(metadata, b"{}", {}, policy=LOCAL, deadline_s=5) == 204  # control
        assert reached.paths == ["/latest/meta-data/"]


def test_a_dripping_receiver_is_cut_at_the_deadline():
    """The tarpit drips a header every 50 ms for 30 s, so no single read ever
    waits long: only a total deadline ends the delivery before it answers."""
    with receiver("drip") as (url, seen):
        with pytest.raises(DeliveryError, match="within 0.5 s"):
            post(url, b"{}", {}, policy=LOCAL, deadline_s=0.5)
        assert seen.cut.wait(30), "the tarpit was never hung up on"
    with receiver("drip") as (url, seen):  # control: it does answer when let go
        seen.release.set()
        assert post(url, b"{}", {}, policy=LOCAL, deadline_s=30) == 200
