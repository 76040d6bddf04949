"""Panel's view comms in a notebook answer "the main shell" when the kernel asks where they go."""

from __future__ import annotations

import inspect

import pytest

from workbench.ui import notebook_comms

pyviz_comms = pytest.importorskip("pyviz_comms")
kernelbase = pytest.importorskip("ipykernel.kernelbase")


class FakeKernelComm:
    """What a client comm needs of the kernel's comm: a handler for its messages."""

    def __init__(self) -> None:
        self.handlers: list = []

    def on_msg(self, handler) -> None:
        self.handlers.append(handler)


def test_this_ipykernel_asks_a_comm_where_its_messages_go():
    # the hook route_to_main_shell sets: if ipykernel stops consulting it, the views' events go back to
    # subshell threads (the README's notebook section) and this test says so
    assert "_reply_subshell_for" in inspect.getsource(kernelbase.Kernel.shell_channel_thread_main)


def test_an_opened_view_comm_routes_to_the_main_shell_and_still_opens():
    assert notebook_comms.route_to_main_shell()
    client = pyviz_comms.JupyterCommJS.__new__(pyviz_comms.JupyterCommJS)  # no kernel: only the open
    opened: list = []
    client._on_open = opened.append
    comm = FakeKernelComm()
    pyviz_comms.JupyterCommJS._handle_open(client, comm, {"content": {}})
    assert comm._reply_subshell_for({"any": "data"}, "subshell-1") is None
    assert client._comm is comm and comm.handlers == [client._handle_msg]  # Panel's own open ran too
    assert opened == [{"content": {}}]
    assert notebook_comms.route_to_main_shell()  # once per process: a second call changes nothing
    pyviz_comms.JupyterCommJS._handle_open(client, FakeKernelComm(), {})
    assert len(opened) == 2


def test_outside_a_kernel_nothing_is_routed():
    assert not notebook_comms.in_kernel()
