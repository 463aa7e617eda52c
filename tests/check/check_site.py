"""A test site for `python -m sim check`: dist/ under SUBPATH, as conftest's `site` serves it,
and beside it what the check must tell apart from it:

- /tampered/: dist/ with one more script, which alters one number after every drawing;
- /stuck/: dist/ with one more script, after which the charts never finish drawing;
- /other-version/: dist/ whose page says it runs another simulator version;
- /plain.html: a page that loads but is not the widget;
- /courses/llm-serving/lesson-7.html: a course page that frames the widget as docs/course-sites.md shows.
"""

import functools
import re
import threading

from conftest import DIST, ROOT, SUBPATH, Server, SubPathHandler

import sim

# docs/course-sites.md's embedding, as a course site would copy it.
EMBED = re.search(r"## The whole page in one frame, by hand.*?```html\n(.*?)```",
                  (ROOT / "docs" / "course-sites.md").read_text(), re.S).group(1)
HOST = "/courses/llm-serving/lesson-7.html"
TAMPERED_KEY = "split.goodput"

# After every drawing of the charts (the pdsplit:settled event, which comes before settled()
# resolves), one number's last digit goes up by one: a page that draws one number wrong.
TAMPER = """addEventListener("pdsplit:settled", () => {
  const e = document.querySelector('#table [data-metric="%s"]');
  e.textContent = e.textContent.replace(/(\\d)(\\D*)$/, (_, d, rest) => `${(Number(d) + 1) %% 10}${rest}`);
});
""" % TAMPERED_KEY


# A page whose charts never finish: settled() never resolves, as if a worker hung.
STUCK = """let real;
Object.defineProperty(window, "pdsplit", {
  get: () => real,
  set: (api) => { real = { ...api, settled: () => new Promise(() => {}) }; },
});
"""
SCRIPTS = {"/tampered/": TAMPER, "/stuck/": STUCK}  # a copy of dist/ with one more script


def tampered(text):
    """The text the tampered page shows instead of `text`."""
    return re.sub(r"(\d)(\D*)$", lambda m: f"{(int(m[1]) + 1) % 10}{m[2]}", text)


OTHER_VERSION = "0.0.1-other"


class Handler(SubPathHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        for prefix in (*SCRIPTS, "/other-version/"):
            if path.startswith(prefix):
                return self.copy(prefix, path[len(prefix):])
        if path == "/plain.html":
            return self.send("<!doctype html><title>A course page</title><h1>Not the widget</h1>")
        if path == HOST:
            frame = re.search(r'src="([^"]+)"', EMBED).group(1)
            host = EMBED.replace(frame, SUBPATH + "?" + frame.split("?")[1])
            return self.send(f"<!doctype html><title>Lesson 7</title><h1>Lesson 7</h1>{host}"
                             f"<p id=after>Next lesson</p>")
        return super().do_GET()

    def copy(self, prefix, rest):
        if rest == "more.js" and prefix in SCRIPTS:
            return self.send(SCRIPTS[prefix], "text/javascript")
        if rest in ("", "index.html"):
            page = (DIST / "index.html").read_text()
            if prefix in SCRIPTS:  # a file, not inline: the page's CSP may allow only its own
                page = page.replace("</head>", '<script src="more.js"></script>\n</head>', 1)
            else:
                marker = f'"simulator":"{sim.__version__}"'
                assert marker in page
                page = page.replace(marker, f'"simulator":"{OTHER_VERSION}"')
            return self.send(page)
        self.path = SUBPATH + rest + ("?" + self.path.split("?", 1)[1] if "?" in self.path else "")
        return super().do_GET()

    def send(self, text, kind="text/html"):
        body = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{kind}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve():
    """(server, thread, origin): the site on a free port, served from a thread."""
    server = Server(("127.0.0.1", 0), functools.partial(Handler, directory=str(DIST)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread, f"http://127.0.0.1:{server.server_address[1]}"


if __name__ == "__main__":  # by hand: python tests/check_site.py
    _, thread, origin = serve()
    print(f"{origin}{SUBPATH} {origin}/tampered/ {origin}{HOST}", flush=True)
    thread.join()
