"""JavaScript string semantics the rule loader and the engine share: what ``String.prototype.trim`` trims.

The reference trims frontmatter values, scope tokens, templates and tool arguments with JavaScript's
``trim``, whose whitespace (ECMAScript WhiteSpace and LineTerminator) is not Python's ``str.strip()``
default: it includes U+FEFF and U+00A0 but not U+001C..U+001F or U+0085. One definition serves both
layers (the engine imports it from here, as it imports the rule model).
"""

from __future__ import annotations

__all__ = ["JS_WHITESPACE", "js_trim", "js_trim_end", "js_trim_start"]

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def js_trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """``String.prototype.trimStart``."""
    return text.lstrip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """``String.prototype.trimEnd``."""
    return text.rstrip(JS_WHITESPACE)
