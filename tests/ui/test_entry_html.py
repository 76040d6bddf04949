"""HTML built from session content is escaped: scripts and handlers become text."""

from __future__ import annotations

from workbench.ui.entry_html import (
    content_blocks_html,
    conversation_html,
    entry_html,
    highlight_spans,
    image_html,
)

HOSTILE = '<script>alert(1)</script><img src=x onerror="alert(2)">'


def test_text_blocks_and_tool_arguments_are_escaped():
    html = content_blocks_html([{"type": "text", "text": HOSTILE},
                                {"type": "toolCall", "id": "t1", "name": "<b>x</b>", "arguments": {"p": HOSTILE}}])
    assert "<script>" not in html and "<img" not in html and "<b>x</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html


def test_entry_shows_every_block_kind_and_usage():
    raw = {"type": "message", "id": "e1", "parentId": None, "timestamp": "t",
           "message": {"role": "assistant", "model": "m", "stopReason": "toolUse",
                       "usage": {"input": 3, "output": 4, "totalTokens": 7, "cost": {"total": 0.5}},
                       "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "hi"},
                                   {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.ts"}}]}}
    html = entry_html(raw, label="lab<el>", line=4, on_active_path=True)
    for needle in ("hmm", "hi", "read", "a.ts", "total tokens <b>7</b>", "$0.5", "[lab&lt;el&gt;]", "line <b>4</b>",
                   "active path"):
        assert needle in html


def test_non_message_entry_shows_its_fields_escaped():
    html = entry_html({"type": "custom", "id": "c", "parentId": "p", "data": {"k": HOSTILE}})
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_images_only_as_reencoded_data_urls():
    assert "data:image/png;base64,aGk=" in image_html({"type": "image", "mimeType": "image/png", "data": "aGk="})
    assert "<img" not in image_html({"type": "image", "mimeType": "text/html", "data": "aGk="})
    assert "<img" not in image_html({"type": "image", "mimeType": "image/png", "data": '" onerror="x'})


def test_conversation_marks_interrupts():
    html = conversation_html([{"role": "user", "content": "q"},
                              {"role": "custom", "content": "<system-interrupt rule=\"r\">x</system-interrupt>"}])
    assert html.count("wb-msg-interrupt") == 1
    assert "&lt;system-interrupt" in html


def test_highlight_spans_escapes_inside_and_outside_marks():
    out = highlight_spans("a<b>.unwrap(c", [(4, 12, "wb-match")])
    assert out == 'a&lt;b&gt;<mark class="wb-match">.unwrap(</mark>c'
    assert highlight_spans("abc", [(1, 2), (0, 3)]) == '<mark class="wb-match">abc</mark>'


def test_an_edit_call_shows_its_diff_escaped_with_the_arguments_folded():
    from workbench.ui.entry_html import content_blocks_html

    html = content_blocks_html([{"type": "toolCall", "id": "c1", "name": "edit", "arguments": {
        "path": "<b>x</b>.py", "old_string": "a = '<i>'\n", "new_string": "a = '<script>'\n"}}])
    assert '<div class="wb-diff-row wb-diff-removed"><span class="wb-diff-sign">-</span>a = &#x27;&lt;i&gt;&#x27;</div>' in html
    assert "&lt;script&gt;" in html and "<script>" not in html and "&lt;b&gt;x&lt;/b&gt;.py" in html
    assert '<details class="wb-args">' in html
    plain = content_blocks_html([{"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "a"}}])
    assert "wb-diff" not in plain and "<details" not in plain


def test_images_follow_the_rule_and_never_take_a_url():
    import base64

    from workbench.ui.entry_html import image_html

    ok = image_html({"type": "image", "mimeType": "image/gif", "data": base64.b64encode(b"GIF89a").decode()})
    assert 'src="data:image/gif;base64,R0lGODlh"' in ok
    svg = image_html({"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="})
    assert "<img" not in svg and "image/svg+xml is not one of" in svg
    remote = image_html({"type": "image", "mimeType": "image/png", "url": "http://example.com/a.png"})
    assert "<img" not in remote and "http" not in remote
