"""The apply_patch reader: each hunk kind of the Codex envelope, wrappers and partial payloads."""

from workbench.edits import FileEntry, FileOp, inspect_apply_patch

EXAMPLE = (
    '*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n*** Update File: src/app.py\n*** Move to: src/main.py\n'
    '@@ def greet():\n-print("Hi")\n+print("Hello, world!")\n context\n*** End of File\n'
    "*** Delete File: obsolete.txt\n*** End Patch\n"
)


def test_the_tools_example():
    found = inspect_apply_patch({"input": EXAMPLE})
    assert found.paths == ("hello.txt", "src/app.py", "obsolete.txt")
    assert found.entries == (
        FileEntry("hello.txt", "Hello world"),
        FileEntry("src/app.py", 'print("Hello, world!")'),
        FileEntry("obsolete.txt", ""),
    )
    assert found.file_ops == (FileOp("move", "src/app.py", "src/main.py"), FileOp("delete", "obsolete.txt"))


def test_heredoc_wrapper_and_missing_end_are_tolerated():
    text = "<<'EOF'\n*** Begin Patch\n*** Update File: a.go\n@@\n+fmt.Println(x)\nEOF"
    assert inspect_apply_patch({"input": text}).entries == (FileEntry("a.go", "fmt.Println(x)"),)
    assert inspect_apply_patch({"input": "*** Begin Patch\n*** Add File: n.rs\n+fn main"}).entries == (
        FileEntry("n.rs", "fn main"),)


def test_without_begin_nothing_is_read():
    assert inspect_apply_patch({"input": "*** Update File: a.go\n+x\n"}).entries == ()
    assert inspect_apply_patch({"input": "*** Begin"}).entries == ()
    assert inspect_apply_patch({}).paths == ()


def test_a_header_counts_once_its_line_is_complete():
    assert inspect_apply_patch({"input": "*** Begin Patch\n*** Update File: src/a.t"}).paths == ()
    assert inspect_apply_patch({"input": "*** Begin Patch\n*** Update File: src/a.ts"}, final=True).paths == (
        "src/a.ts",)
    assert inspect_apply_patch({"input": "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b"}).file_ops == ()


def test_repeated_files_merge_and_empty_headers_are_skipped():
    text = "*** Begin Patch\n*** Update File: a.ts\n+one\n*** Update File:  \n+lost\n*** Update File: a.ts\n+two\n"
    assert inspect_apply_patch({"input": text}).entries == (FileEntry("a.ts", "one\ntwo"),)
