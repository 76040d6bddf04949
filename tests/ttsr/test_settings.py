"""Settings merge (spec §5): camelCase and snake_case keys, unknown keys kept."""

from __future__ import annotations

from workbench.ttsr import TtsrSettings


def test_defaults() -> None:
    assert TtsrSettings.from_mapping(None).to_mapping() == {
        "enabled": True,
        "contextMode": "discard",
        "interruptMode": "always",
        "repeatMode": "once",
        "repeatGap": 10,
        "builtinRules": True,
        "disabledRules": [],
    }


def test_snake_and_camel_keys_merge_and_unknown_keys_survive() -> None:
    s = TtsrSettings.from_mapping({"repeat_mode": "after-gap", "repeatGap": 3, "custom": 1})
    assert s.repeat_mode == "after-gap" and s.repeat_gap == 3
    assert s.to_mapping()["custom"] == 1
    assert s.to_mapping()["repeatMode"] == "after-gap"


def test_enabled_uses_js_truthiness() -> None:
    assert not TtsrSettings.from_mapping({"enabled": 0}).is_enabled
    assert not TtsrSettings.from_mapping({"enabled": None}).is_enabled
    assert TtsrSettings.from_mapping({"enabled": "no"}).is_enabled
