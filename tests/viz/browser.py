"""A headless Chromium driven over the DevTools protocol (CDP), for the tests of the HTML report.

Debian's ``chromium`` package (``apt-get install -y chromium``; ``.ci/run`` installs it). The browser is started
with a throw-away profile, WebGL on SwiftShader (CPU) and every host name unresolvable; the page's network is also
switched off through CDP, and every request the page makes is recorded.
"""
from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

import numpy as np
import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_browser() -> str:
    """The Chromium executable; a missing browser fails the test where one is required (CI sets
    FLEXMBS_REQUIRE_BROWSER=1 in .ci/run) and skips it elsewhere, with the line that installs it."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    message = "no Chromium on PATH: apt-get update && apt-get install -y chromium"
    if os.environ.get("FLEXMBS_REQUIRE_BROWSER") or os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


class Browser:
    """One headless Chromium with one page; ``call`` sends a CDP command and returns its result."""

    def __init__(self, width: int = 1280, height: int = 900):
        import websocket  # websocket-client (the [test] extra)

        self.profile = tempfile.mkdtemp(prefix="flexmbs-chromium-")
        self.process = subprocess.Popen(
            [find_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-gpu-sandbox", "--enable-unsafe-swiftshader",
             "--use-angle=swiftshader", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--host-resolver-rules=MAP * ~NOTFOUND", f"--window-size={width},{height}",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(600):  # the browser writes its port once it listens
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            if self.process.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.process.returncode}")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        for _ in range(100):
            targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                break
            time.sleep(0.1)
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=300,
                                                  suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1,
                  uploadThroughput=-1)
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, url: str, ready: str, polls: int = 1200) -> None:
        """Navigate to ``url`` and wait until the JavaScript expression ``ready`` is true."""
        self.call("Page.navigate", url=url)
        for _ in range(polls):
            try:
                if self.evaluate(ready):
                    return
            except RuntimeError:  # the page's context is being replaced
                pass
            time.sleep(0.1)
        raise AssertionError(f"{url} did not become ready ({ready})")

    def settle(self, seconds: float = 1.0) -> None:
        """Let the page paint (two animation frames and a pause)."""
        time.sleep(seconds)
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")

    def screenshot(self, path: str, clip: dict | None = None) -> np.ndarray:
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        with open(path, "wb") as handle:
            handle.write(data)
        from PIL import Image

        with Image.open(path) as image:
            return np.asarray(image.convert("RGB"))

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
        """Press the left button at ``start``, move to ``end`` and release it (CSS pixels of the viewport)."""
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=start[0], y=start[1])
        self.call("Input.dispatchMouseEvent", type="mousePressed", x=start[0], y=start[1], button="left",
                  clickCount=1)
        for s in np.linspace(0.0, 1.0, steps)[1:]:
            self.call("Input.dispatchMouseEvent", type="mouseMoved", x=start[0] + s * (end[0] - start[0]),
                      y=start[1] + s * (end[1] - start[1]), button="left", buttons=1)
        self.call("Input.dispatchMouseEvent", type="mouseReleased", x=end[0], y=end[1], button="left",
                  clickCount=1)

    def console_errors(self) -> list[str]:
        """Errors the page reported: console.error calls, uncaught exceptions, error log entries (the browser's
        own GPU performance notes excepted)."""
        out = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                out.append(str(params.get("exceptionDetails", {}).get("exception", {}).get("description")
                               or params.get("exceptionDetails", {}).get("text")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append(params["entry"].get("text", ""))
        return out

    def requests(self) -> list[str]:
        """URLs of every request the page made."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def close(self) -> None:
        try:
            self.socket.close()
        finally:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
            shutil.rmtree(self.profile, ignore_errors=True)
