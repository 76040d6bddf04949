"""The hashline reader: every operation of the 18.3.4 prompt's grammar, and partial payloads."""

from workbench.edits import FileEntry, FileOp, inspect_hashline


def entries(text, **kw):
    return inspect_hashline({"input": text}, **kw).entries


def test_replace_range_body_is_the_digest():
    text = "*** Begin Patch\n[src/a.ts#1A2B]\nPUT 3.=4:\n+const a = 1;\n+console.log(a);\n*** End Patch\n"
    found = inspect_hashline({"input": text})
    assert found.paths == ("src/a.ts",)
    assert found.entries == (FileEntry("src/a.ts", "const a = 1;\nconsole.log(a);"),)
    assert found.file_ops == ()


def test_every_put_form_contributes_its_body():
    ops = ["PUT 2*:", "PUT <5:", "PUT >5:", "PUT >$:", "PUT >7*:", "PUT 9.=9:"]
    body = "".join(f"{op}\n+row{i}\n" for i, op in enumerate(ops))
    assert entries(f"[a.py#ABCD]\n{body}") == (FileEntry("a.py", "\n".join(f"row{i}" for i in range(6))),)


def test_cut_and_paste_carry_no_body():
    text = "[a.py#ABCD]\nCUT 3.=5 @moved\nCUT 9*\n[b.py#0F0F]\nPUT <2 @moved\nPUT 4* @moved\nPUT >1:\n+x\n"
    assert entries(text) == (FileEntry("a.py", ""), FileEntry("b.py", "x"))


def test_rem_and_mv_are_file_operations():
    found = inspect_hashline({"input": "[old.ts#AAAA]\nMV new/place.ts\n[gone.ts#BBBB]\nREM\n"})
    assert found.file_ops == (FileOp("move", "old.ts", "new/place.ts"), FileOp("delete", "gone.ts"))
    assert found.paths == ("old.ts", "gone.ts")


def test_body_row_escapes_and_blank_rows():
    assert entries("[a.md]\nPUT >1:\n+\n++ plus\n+- minus\n+  indented\n") == (
        FileEntry("a.md", "\n+ plus\n- minus\n  indented"),)


def test_headers_tag_optional_quotes_removed_and_repeats_merged():
    text = "['my file.ts'#ABCD]\nPUT >1:\n+one\n[b.ts]\nPUT >1:\n+two\n[ 'my file.ts' ]\nPUT >2:\n+three\n"
    assert entries(text) == (FileEntry("my file.ts", "one\nthree"), FileEntry("b.ts", "two"))


def test_rows_outside_a_section_and_after_the_end_are_ignored():
    text = "+stray\n*** Begin Patch\n[a.ts]\nPUT >1:\n+in\n*** End Patch\n[b.ts]\n+after\n"
    assert entries(text) == (FileEntry("a.ts", "in"),)


def test_legacy_input_key_crlf_and_bom():
    found = inspect_hashline({"_input": "\ufeff[a.ts#ABCD]\r\nPUT >1:\r\n+x\r\n"})
    assert found.entries == (FileEntry("a.ts", "x"),)


def test_a_header_counts_once_its_line_is_complete():
    assert entries("*** Begin Patch\n[src/a.t") == ()
    assert entries("*** Begin Patch\n[src/a.ts#1A2B]") == ()
    assert entries("*** Begin Patch\n[src/a.ts#1A2B]", final=True) == (FileEntry("src/a.ts", ""),)
    assert entries("*** Begin Patch\n[src/a.ts#1A2B]\n") == (FileEntry("src/a.ts", ""),)


def test_a_cut_off_body_row_is_seen_as_it_streams():
    assert entries("[a.ts]\nPUT >1:\n+console.lo") == (FileEntry("a.ts", "console.lo"),)


def test_odd_arguments_recover_nothing():
    assert inspect_hashline(None).entries == ()
    assert inspect_hashline({"input": 3}).entries == ()
    assert inspect_hashline({"input": ""}).paths == ()
    assert entries("not a patch at all") == ()
