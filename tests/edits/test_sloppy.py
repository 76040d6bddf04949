"""The 18.3 sloppy reader: Edit File / Find / Replace / Insert Before / Insert After."""

from workbench.edits import FileEntry, inspect_sloppy


def entries(text, **kw):
    return inspect_sloppy({"input": text}, **kw).entries


def test_find_is_the_anchor_and_replace_the_digest():
    text = "*** Edit File: src/a.ts\n*** Find\nconst a = 1;\n*** Replace\nconst a = 2;\nconsole.log(a);\n"
    found = inspect_sloppy({"input": text})
    assert found.paths == ("src/a.ts",)
    assert found.entries == (FileEntry("src/a.ts", "const a = 2;\nconsole.log(a);"),)


def test_insert_before_and_after_add_their_rows_verbatim():
    text = ("*** Edit File: a.py\n*** Find\ndef f():\n*** Insert Before\n@decorator\n"
            "*** Find\n    return 1\n*** Insert After\n    # done\n")
    assert entries(text) == (FileEntry("a.py", "@decorator\n    # done"),)


def test_several_files_an_envelope_and_an_end_marker():
    text = ("*** Begin Patch\n*** Edit File: a.ts\n*** Find\nx\n*** Replace\ny\n*** End\nnot a row\n"
            "*** Edit File: b.ts\n*** Find\np\n*** Replace\nq\n*** End Patch\n")
    assert entries(text) == (FileEntry("a.ts", "y"), FileEntry("b.ts", "q"))


def test_partial_headers_and_markers_are_not_rows_yet():
    assert entries("*** Edit File: src/a.t") == ()
    assert entries("*** Edit File: src/a.ts", final=True) == (FileEntry("src/a.ts", ""),)
    assert entries("*** Edit File: a.ts\n*** Find\nx\n*** Replace\ny\n**") == (FileEntry("a.ts", "y"),)
    assert entries("*** Edit File: a.ts\n*** Replace\n * doc") == (FileEntry("a.ts", " * doc"),)


def test_rows_before_any_file_are_ignored():
    assert entries("*** Replace\norphan\n") == ()
    assert inspect_sloppy({"input": None}).paths == ()
