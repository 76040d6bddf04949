"""Search-all snippets: word boundaries, the match marked, session text escaped."""

from workbench.ui.snippets import snippet_html


def test_match_is_marked_and_cuts_fall_between_words():
    text = " ".join(f"word{i}" for i in range(100)) + " the needle here " + " ".join(f"tail{i}" for i in range(100))
    html = snippet_html(text, "needle", width=60)
    assert "<mark>needle</mark>" in html
    assert html.startswith("… ") and html.endswith(" …")
    inner = html[2:-2].replace("<mark>", "").replace("</mark>", "")
    words = inner.split(" ")
    assert all(w.startswith(("word", "tail")) or w in ("the", "needle", "here") for w in words), words


def test_session_text_is_escaped_and_case_is_kept():
    html = snippet_html("<script>alert(1)</script> Fix The Login", "the login")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<mark>The Login</mark>" in html


def test_no_literal_match_shows_the_start_cut_at_a_word():
    html = snippet_html("alpha beta gamma delta " * 20, "zeta", width=30)
    assert html.endswith(" …") and "<mark>" not in html and "delt …" not in html
