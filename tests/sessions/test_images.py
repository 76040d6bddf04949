"""The image rule: allowed raster types only, from the part's own base64, size-capped, never a URL."""

from __future__ import annotations

import base64

from tests.sessions.subagent_family import png
from workbench.sessions import MAX_IMAGE_BYTES, image_part


def _part(mime, data):
    return {"type": "image", "mimeType": mime, "data": data}


def test_an_allowed_image_becomes_a_data_uri_of_its_own_bytes():
    raw = png()
    shown = image_part(_part("image/png", base64.b64encode(raw).decode()))
    assert shown.shown and shown.size == len(raw)
    assert shown.src == "data:image/png;base64," + base64.b64encode(raw).decode()
    for mime in ("image/jpeg", "image/gif", "image/webp", "IMAGE/PNG"):
        assert image_part(_part(mime, base64.b64encode(b"x").decode())).shown


def test_types_outside_the_allow_list_are_not_shown():
    for mime in ("image/svg+xml", "text/html", None, "image/png;base64,AAAA\"onerror=x"):
        shown = image_part(_part(mime, base64.b64encode(b"<svg onload=alert(1)>").decode()))
        assert not shown.shown and shown.src is None and "is not one of png, jpeg, gif, webp" in shown.note


def test_above_the_cap_it_says_how_big():
    shown = image_part(_part("image/png", base64.b64encode(b"\0" * (3 * 1024 * 1024)).decode()))
    assert not shown.shown and shown.note.startswith("image not shown: 3.0 MB")
    small_cap = image_part(_part("image/png", base64.b64encode(b"\0" * 2000).decode()), max_bytes=1000)
    assert not small_cap.shown and small_cap.size == 2000
    assert MAX_IMAGE_BYTES == 2 * 1024 * 1024


def test_no_remote_source_and_no_text_that_is_not_base64():
    remote = image_part({"type": "image", "mimeType": "image/png", "url": "http://example.com/x.png"})
    assert not remote.shown and "never fetched" in remote.note
    assert not image_part(_part("image/png", "http://example.com/x.png")).shown
    injected = image_part(_part("image/png", 'AAAA" onerror="alert(1)'))
    assert not injected.shown and "not valid base64" in injected.note
