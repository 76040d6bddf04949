"""Screenshots of the Playground, Drafts and Timeline tabs and of an export, over ``sample_sessions/``.

    .venv/bin/python docs/screenshots/take_tour_16.py

Writes ``playground.png``, ``drafts.png``, ``timeline.png`` and ``export.png`` next to this file. Nothing
under sample_sessions/ is written: the example is only previewed (its diff), the rule edit stays in the
browser session and the export goes to a temporary folder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from shoot import HERE, SAMPLES, launch, serve, stop


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    base = serve([SAMPLES])
    expect.set_options(timeout=120_000)
    try:
        with sync_playwright() as p:
            browser = launch(p)
            page = browser.new_page(viewport={"width": 1400, "height": 900})

            def save(name: str) -> None:
                page.wait_for_timeout(1200)
                page.screenshot(path=str(HERE / f"{name}.png"))
                print("wrote", HERE / f"{name}.png")

            # first (replays left running by later pages would slow it down): the Timeline of the session where TTSR fired
            page.goto(f"{base}?tab=timeline&session=ttsr-fired.jsonl&rules=project")
            expect(page.locator(".wb-tl-status")).to_contain_text("turn(s) shown")
            save("timeline")

            # Playground: an astCondition on a TypeScript edit, nodes, bindings, a parse error, the example's diff
            page.goto(f"{base}?tab=playground&rules=project")
            page.locator(".wb-play-rule select").select_option("ts-no-as-any")
            page.locator(".wb-play-source").get_by_text("tool call (edit/write)").click()
            page.locator(".wb-play-path input").fill("src/session.ts")
            page.locator(".wb-play-path input").press("Enter")
            page.locator(".wb-play-input textarea").fill(
                "export function userId(req: Request) {\n  return (req as any).user?.id ?? (req.session as any).uid;\n}\n"
                "const broken = (x as any) +;\n")
            expect(page.locator(".wb-play-report")).to_contain_text("3 node(s)")
            page.get_by_role("button", name="Save as example…").click()
            expect(page.locator(".wb-play-diff")).to_contain_text("+  - tool:")
            save("playground")

            # Drafts: the Rust unwrap rule narrowed to tool calls, compared over the samples
            page.goto(f"{base}?tab=rules&rules=project")
            page.locator("select").filter(has_text="no-unwrap").first.select_option("no-unwrap")
            editor = page.locator(".wb-rule-editor textarea")
            expect(editor).to_have_value(__import__("re").compile("unwrap"))
            editor.fill(editor.input_value().replace("scope: text, tool:edit", "scope: tool:edit")
                        .replace("interruptMode: ", "interruptMode_was: "))
            expect(page.locator(".wb-rules")).to_contain_text("no-unwrap (edited)")
            page.locator(".bk-tab", has_text="Drafts").first.click()
            page.locator(".wb-draft-edited select").select_option("no-unwrap")
            page.get_by_role("button", name="Save to file…").click()
            expect(page.locator(".wb-draft-diff")).to_contain_text("scope")
            page.get_by_role("button", name="Compare with the saved rules").click()
            expect(page.locator(".wb-draft-status")).to_contain_text("newly fire")
            save("drafts")

            # The export of the Stepper at its first trigger, opened from disk with the network off
            page.goto(f"{base}?tab=stepper&session=fix-auth.jsonl&stream=streams/prose-unwrap.stream.jsonl&rules=project")
            page.get_by_role("button", name="Next trigger ▶|").click()
            expect(page.locator(".wb-step-position")).to_contain_text("TRIGGER")
            page.get_by_role("button", name="Export…").click()
            with page.expect_download() as info:
                page.locator(".wb-export").get_by_text("Export HTML").click()  # in the Export… dialog
            out = Path(tempfile.mkdtemp()) / info.value.suggested_filename
            info.value.save_as(out)
            offline = browser.new_context(offline=True, viewport={"width": 1400, "height": 900}).new_page()
            offline.goto(out.as_uri())
            expect(offline.locator(".position")).to_contain_text("step")
            offline.wait_for_timeout(800)
            offline.screenshot(path=str(HERE / "export.png"))
            print("wrote", HERE / "export.png")
            browser.close()
    finally:
        stop()


if __name__ == "__main__":
    main()
