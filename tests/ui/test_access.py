"""Serving beyond loopback: named origins and an access token are required, and the login holds."""

from __future__ import annotations

import http.cookiejar
import urllib.error
import urllib.parse
import urllib.request

import pytest

from tests.ui.conftest import FIXTURES, serving
from workbench.cli import main
from workbench.errors import UsageError
from workbench.ui.access import TOKEN_ENV, exposure


def test_loopback_needs_no_token_and_allows_only_loopback_origins():
    exp = exposure("127.0.0.1", 5006, env={})
    assert exp.token is None and exp.announcement() == ""
    assert set(exp.origins) == {"127.0.0.1:5006", "localhost:5006"}
    assert "basic_auth" not in exp.serve_kwargs()


def test_loopback_behind_a_proxy_origin_needs_the_token_too():
    exp = exposure("127.0.0.1", 5006, ["wb.example.org"], env={})
    assert exp.token and "wb.example.org" in exp.origins and exp.serve_kwargs()["basic_auth"] == exp.token


def test_any_other_address_without_origins_is_refused():
    with pytest.raises(UsageError, match="^allow_origin needed: address 0.0.0.0 listens beyond") as caught:
        exposure("0.0.0.0", 5006, env={})
    assert caught.value.field == "allow_origin" and "--" not in str(caught.value)


def test_wildcards_and_urls_are_not_origins():
    for bad in ("*", "https://host", "host/path"):
        with pytest.raises(UsageError, match="^allow_origin '.*': give a host") as caught:
            exposure("0.0.0.0", 5006, [bad], env={})
        assert caught.value.field == "allow_origin" and caught.value.value == repr(bad)


def test_exposed_server_gets_a_printed_token_or_the_env_one():
    exp = exposure("0.0.0.0", 5006, ["wb.example.org"], env={})
    assert exp.origins == ("wb.example.org",)  # only what was named: no loopback, no "*"
    assert exp.token and len(exp.token) >= 20 and exp.token in exp.announcement()
    kwargs = exp.serve_kwargs()
    assert kwargs["basic_auth"] == exp.token and kwargs["websocket_origin"] == ["wb.example.org"]
    chosen = exposure("0.0.0.0", 5006, ["wb.example.org"], env={TOKEN_ENV: "s3cret-from-env"})
    assert chosen.token == "s3cret-from-env" and "s3cret-from-env" not in chosen.announcement()


def test_cli_refuses_a_public_address_without_origins(capsys):
    assert main(["serve", str(FIXTURES), "--address", "0.0.0.0", "--port", "0"]) == 2
    assert "error: --allow-origin needed: address 0.0.0.0 listens beyond" in capsys.readouterr().err


def test_cli_names_the_flag_of_a_bad_origin(capsys):
    assert main(["serve", str(FIXTURES), "--address", "0.0.0.0", "--port", "0", "--allow-origin", "*"]) == 2
    assert "error: --allow-origin '*': give a host" in capsys.readouterr().err


def test_served_with_a_token_pages_need_the_login():
    """The token-protected server (as a non-loopback address gets it), served here on loopback."""
    exp = exposure("0.0.0.0", 0, ["wb.example.org"], env={TOKEN_ENV: "the-token-123"})
    kwargs = exp.serve_kwargs()
    kwargs.pop("websocket_origin")
    with serving([FIXTURES], **kwargs) as url:
        base = url.rsplit("/", 1)[0]
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(url, timeout=30)
        assert "/login" in page.geturl()  # no session without logging in
        wrong = urllib.parse.urlencode({"username": "me", "password": "nope"}).encode()
        try:
            opener.open(f"{base}/login", data=wrong, timeout=30)
        except urllib.error.HTTPError:
            pass  # refused outright or sent back to the login page: either way no session
        assert "/login" in opener.open(url, timeout=30).geturl()
        right = urllib.parse.urlencode({"username": "me", "password": "the-token-123"}).encode()
        opener.open(f"{base}/login", data=right, timeout=30)
        page = opener.open(url, timeout=30)
        assert "/login" not in page.geturl() and "TTSR Workbench" in page.read().decode("utf-8", "replace")
