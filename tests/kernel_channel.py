"""A page's kernel channel, opened as a browser opens it (a websocket to
``/api/kernels/<id>/channels``): the attack tests send it messages and read what comes back."""

from __future__ import annotations

import json
import re
import time
import uuid

import pytest


def page_kernel(html: str) -> str:
    """The id of the kernel a Voila page runs in (its page config, as the page's scripts read it)."""
    m = re.search(r'"kernelId": "([0-9a-f-]+)"', html)
    assert m, "the page names no kernel"
    return m.group(1)


def execute(code: str) -> dict:
    return {"code": code, "silent": False, "store_history": False, "user_expressions": {}, "allow_stdin": False}


def exchange(url: str, send: list[tuple[str, str, dict]], headers: list[str] = (), wait_s: float = 6.0,
             user: str = "student") -> list[tuple[str, str, dict]]:
    """Open the channel at ``url`` (ws://...), send (channel, msg_type, content) messages and
    return (channel, msg_type, content) of what comes back within ``wait_s`` seconds (sooner
    when the last message sent was an execute_request and its reply came)."""
    websocket = pytest.importorskip("websocket")
    ws = websocket.create_connection(url, timeout=2, header=list(headers))
    for channel, kind, content in send:
        ws.send(json.dumps({"header": {"msg_id": uuid.uuid4().hex, "msg_type": kind, "username": user,
                                       "session": uuid.uuid4().hex, "date": "", "version": "5.3"},
                            "parent_header": {}, "metadata": {}, "content": content, "channel": channel,
                            "buffers": []}))
    got, end = [], time.monotonic() + wait_s
    while time.monotonic() < end:
        try:
            m = json.loads(ws.recv())
        except websocket.WebSocketTimeoutException:
            continue
        got.append((m["channel"], m["header"]["msg_type"], m["content"]))
        if send[-1][1] == "execute_request" and m["header"]["msg_type"] == "execute_reply":
            break
    ws.close()
    return got


def code_on_every_channel(marker: str) -> list[tuple[str, str, dict]]:
    """An execute_request that would create the file ``marker``, on each channel a page's kernel
    connection has, then a kernel_info_request (whose reply shows the channel itself works)."""
    attack = [(ch, "execute_request", execute(f"open({marker!r}, 'w').write('ran')"))
              for ch in ("shell", "control", "stdin")]
    return attack + [("shell", "kernel_info_request", {})]


REFUSED = '"execute_request", which is not allowed'  # Jupyter Server's log line for a dropped message
