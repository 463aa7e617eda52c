"""What the hub's tests and its bench share: a strict host (docs/course-sites.md's CSP and MIME types,
dist/ under a sub-path, as conftest's strict_site) that also counts every byte it sends and
serves the test host page six-pieces.html beside dist/'s files; and booting every piece of a
course page."""

import functools
import threading
from collections import Counter
from pathlib import Path

from conftest import DIST, SUBPATH, Server, StrictHandler, readme_csp, readme_mime_types

HERE = Path(__file__).resolve().parent
HOSTS = {"six-pieces.html": HERE / "page" / "six-pieces.html"}  # host pages of the tests'
WASM, SNAPSHOT = "pyodide.asm.wasm.gz", "snapshot.bin.gz"  # the core as the worker fetches it


class CountingHandler(StrictHandler):
    """The strict host, logging (file name, bytes of its body) for every answer."""

    sent = []

    def translate_path(self, path):
        name = path.split("?", 1)[0][len(SUBPATH):]
        if path.startswith(SUBPATH) and name in HOSTS:
            return str(HOSTS[name])
        return super().translate_path(path)

    def copyfile(self, source, outputfile):
        data = source.read()
        self.sent.append((self.path.split("?", 1)[0].rsplit("/", 1)[-1] or "index.html", len(data)))
        outputfile.write(data)


class CountingSite:
    """The strict host on a free port: its URL, the bytes sent, the CSP violations reported."""

    def __init__(self):
        self.handler = type("Counting", (CountingHandler,), {
            "policy": readme_csp(), "types": readme_mime_types(), "reports": [], "sent": []})
        self.server = Server(("127.0.0.1", 0), functools.partial(self.handler, directory=str(DIST)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{SUBPATH}"

    @property
    def reports(self):
        return self.handler.reports

    def reset(self):
        self.handler.sent.clear()
        self.handler.reports.clear()

    def bytes(self):
        return sum(n for _, n in self.handler.sent)

    def downloads(self, name):
        """How many times a file was sent whole."""
        return Counter(file for file, n in self.handler.sent if n)[name]

    def close(self):
        self.server.shutdown()


def boot_pieces(page, timeout):
    """Scroll to every piece of a course page in turn (which is what loads it), and wait until
    each is ready and settled: the pieces' frames, in order."""
    count = page.locator("iframe.pdsplit-frame").count()
    frames = []
    for index in range(count):
        element = page.locator("iframe.pdsplit-frame").nth(index)
        element.scroll_into_view_if_needed()
        page.wait_for_function("i => document.querySelectorAll('iframe.pdsplit-frame')[i].getAttribute('src')",
                               arg=index, timeout=timeout)
        frame = element.element_handle().content_frame()
        frame.wait_for_function("() => window.pdsplit !== undefined", timeout=timeout)
        frames.append(frame)
    for frame in frames:  # they boot together; then each is waited for
        frame.evaluate("window.pdsplit.ready")
        frame.evaluate("window.pdsplit.settled()")
    return frames
