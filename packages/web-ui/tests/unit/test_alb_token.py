"""The load balancer's signed identity: believed only when its ES256 signature,
signer and expiry check out (each refusal is a case that must fail)."""

import base64
import json
import time

import pytest

from web_ui.alb_token import HttpAlbKeys, verify_alb_token
from web_ui.errors import SignInError
from web_ui.fake_alb import FakeAlb


@pytest.fixture(scope="module")
def alb():
    return FakeAlb()


def verify(alb, token, **kwargs):
    return verify_alb_token(token, alb, signer_arn=kwargs.get("signer_arn", alb.signer_arn),
                            now=kwargs.get("now", time.time()))


def test_a_token_the_load_balancer_signed_names_its_user(alb):
    claims = verify(alb, alb.token("user-1", email="a@example.com"))
    assert (claims["sub"], claims["email"]) == ("user-1", "a@example.com")


def test_a_token_signed_by_another_key_is_refused(alb):
    forger = FakeAlb()
    forger.kid = alb.kid  # claims to be the load balancer's key
    with pytest.raises(SignInError, match="does not verify"):
        verify(alb, forger.token("user-1"))


def test_a_token_whose_claims_were_changed_is_refused(alb):
    head, body, sig = alb.token("user-1").split(".")
    claims = json.loads(base64.urlsafe_b64decode(body))
    claims["sub"] = "admin"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode()
    with pytest.raises(SignInError, match="does not verify"):
        verify(alb, f"{head}.{forged}.{sig}")


def test_a_token_of_another_load_balancer_is_refused(alb):
    with pytest.raises(SignInError, match="another load balancer"):
        verify(alb, alb.token("user-1", signer_arn="arn:aws:elasticloadbalancing:other"))


def test_an_expired_token_is_refused(alb):
    with pytest.raises(SignInError, match="expired"):
        verify(alb, alb.token("user-1"), now=time.time() + 7200)


@pytest.mark.parametrize("token", ["", "a.b", "x.y.z", "e30.e30.e30", "a" * 20_000])
def test_malformed_tokens_are_refused(alb, token):
    with pytest.raises(SignInError):
        verify(alb, token)


def test_an_unsigned_token_is_refused(alb):
    head = base64.urlsafe_b64encode(json.dumps(
        {"alg": "none", "kid": alb.kid, "signer": alb.signer_arn}).encode()).decode()
    body = base64.urlsafe_b64encode(b'{"sub": "admin"}').decode()
    with pytest.raises(SignInError, match="ES256"):
        verify(alb, f"{head}.{body}.")


def test_published_keys_are_fetched_once_per_key_id(tmp_path):
    alb = FakeAlb()
    (tmp_path / alb.kid).write_bytes(alb.public_key_pem(alb.kid))
    keys = HttpAlbKeys("eu-west-1", url_template=tmp_path.as_uri() + "/{kid}")
    assert keys.public_key_pem(alb.kid) == alb.public_key_pem(alb.kid)
    (tmp_path / alb.kid).unlink()
    assert keys.public_key_pem(alb.kid) == alb.public_key_pem(alb.kid)  # from the cache
    claims = verify_alb_token(alb.token("u"), keys, signer_arn=alb.signer_arn, now=time.time())
    assert claims["sub"] == "u"


def test_a_key_id_that_is_not_one_never_reaches_a_url():
    keys = HttpAlbKeys("eu-west-1", url_template="file:///nonexistent/{kid}")
    with pytest.raises(SignInError, match="malformed key"):
        keys.public_key_pem("../../etc/passwd")
