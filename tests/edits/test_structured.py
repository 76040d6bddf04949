"""replace, patch and write: the JSON-field modes."""

from workbench.edits import FileEntry, FileOp, inspect_patch, inspect_replace, tool_view


def test_replace_digest_is_new_string():
    found = inspect_replace({"path": "a.ts", "old_string": "x", "new_string": "y", "replace_all": True})
    assert found.paths == ("a.ts",) and found.entries == (FileEntry("a.ts", "y"),)
    assert inspect_replace({"path": "a.ts", "old_string": "x"}).entries == (FileEntry("a.ts", ""),)
    assert inspect_replace({"new_string": "y"}).entries == ()


def test_replace_batch_joins_every_new_string():
    args = {"path": "a.ts", "edits": [{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}]}
    assert inspect_replace(args).entries == (FileEntry("a.ts", "b\nd"),)


def test_patch_create_update_delete_rename():
    args = {"path": "src/app.py", "edits": [
        {"op": "create", "diff": "Hello\n"},
        {"op": "update", "rename": "src/main.py", "diff": "@@ def greet():\n def greet():\n-print('Hi')\n+print('Hello')\n"},
        {"op": "delete"},
    ]}
    found = inspect_patch(args)
    assert found.entries == (FileEntry("src/app.py", "Hello\n\nprint('Hello')"),)
    assert found.file_ops == (FileOp("move", "src/app.py", "src/main.py"), FileOp("delete", "src/app.py"))
    assert inspect_patch({"path": "a", "edits": [{"diff": "+++ b/a\n+x\n"}]}).entries == (FileEntry("a", "x"),)


def test_write_has_only_a_digest():
    view = tool_view("write", {"path": "a.ts", "content": "console.log(1)"}, call_id="w")
    assert (view.digest, view.paths, view.entries, view.mode) == ("console.log(1)", None, (), None)
    assert tool_view("write", {"path": "a.ts"}).digest is None
