"""A webhook over TLS connects to the checked address yet still verifies the
certificate for the URL's name, which it also sends as SNI (a real local
HTTPS server with a certificate made here)."""

from __future__ import annotations

import datetime
import http.server
import ssl
import threading

import pytest

from web_ui.outbound import DeliveryError, OutboundPolicy, post

from .receivers import resolving

LOCAL = OutboundPolicy(allow_private=True)  # https only: the default scheme rule


def certificate(tmp_path, name: str):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / f"{name}.pem", tmp_path / f"{name}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def tls_receiver(tmp_path):
    """An HTTPS receiver on 127.0.0.1 presenting a certificate for hook.test;
    yields (port, the names it was asked for by SNI, the Host headers seen)."""
    cert, key = certificate(tmp_path, "hook.test")
    names, hosts = [], []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            hosts.append(self.headers["Host"])
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    context.sni_callback = lambda sock, name, ctx: names.append(name)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], names, hosts, cert
    server.shutdown()
    server.server_close()


def test_tls_to_the_checked_address_keeps_the_name_for_sni_and_the_certificate(
        tls_receiver, monkeypatch):
    port, names, hosts, cert = tls_receiver
    resolving(monkeypatch, {"hook.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    trust = ssl.create_default_context(cafile=str(cert))
    assert post(f"https://hook.test:{port}/x", b"{}", {}, policy=LOCAL, deadline_s=10,
                tls=trust) == 204
    assert names == ["hook.test"] and hosts == [f"hook.test:{port}"]
    with pytest.raises(DeliveryError, match="certificate"):  # the control: a name it is not
        post(f"https://other.test:{port}/x", b"{}", {}, policy=LOCAL, deadline_s=10, tls=trust)
    assert len(hosts) == 1
