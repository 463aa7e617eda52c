"""Light on a phone (issue 49): Python's core is fetched packed and unpacked as it arrives,
and the big files (the core, the standard library, the snapshot) are kept by the browser's
Cache API, so that a second visit starts from disk. Each way in gives native Python's numbers:
packed, plain (no packed file), from disk, and with no Cache API at all. A kept copy is never
another build's: each URL names its content, older builds' copies are deleted once a new one
has booted, and a kept copy that is wrong is forgotten and fetched again."""

import io
import zipfile
from urllib.parse import parse_qs, urlparse

import sim
from conftest import BOOT_TIMEOUT, CHROMIUM_ARGS, DIST, Watch, baked, hold_snapshot_until, readme_mime_types

BIG = ("pyodide.asm.wasm.gz", "snapshot.bin.gz")  # what a boot from the snapshot downloads
STATES = "states.json.gz"  # the named states' results, which the page keeps too


def visit(context, url):
    """A new tab in `context` (a browser profile), booted, with what it asked the network for."""
    page = context.new_page()
    page.watch = Watch(context, page)
    page.set_default_timeout(BOOT_TIMEOUT)
    page.goto(url)
    page.evaluate("window.pdsplit.ready")
    return page


def fetched(page):
    return [urlparse(u).path.rsplit("/", 1)[-1] for u in page.watch.requests]


def until(page, condition, arg=None):
    """Wait for an async condition on the page's cache (wait_for_function does not await a
    promise): polled every 50 ms, for at most 60 s."""
    assert page.evaluate(f"""async (arg) => {{
        const holds = {condition};
        for (let i = 0; i < 1200; i++) {{
            if (await holds(arg)) return true;
            await new Promise((resolve) => setTimeout(resolve, 50));
        }}
        return false;
    }}""", arg), condition


def kept(page, folder):
    """The URLs of this folder that the page's cache holds."""
    return page.evaluate("""async (folder) => {
        const cache = await caches.open("pdsplit");
        return (await cache.keys()).map((r) => r.url).filter((u) => u.startsWith(folder));
    }""", folder)


def test_a_second_visit_starts_from_disk(browser, site):
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        first = visit(context, site)
        names = fetched(first)
        assert all(names.count(name) == 1 for name in (*BIG, STATES)), names
        assert "pyodide.asm.wasm" not in names  # the packed core, unpacked as it came
        assert "python_stdlib.zip" not in names  # a boot from the snapshot needs none of it
        info = first.evaluate("window.pdsplit.python()")
        assert info["boot"] == "snapshot" and info["kept"] == []
        assert first.evaluate("window.pdsplit.result()") == sim.compare()
        until(first, """async (names) => {
            const kept = (await (await caches.open('pdsplit')).keys()).map((r) => new URL(r.url).pathname.split('/').pop());
            return names.every((name) => kept.includes(name));
        }""", [*BIG, STATES])
        first.close()

        second = visit(context, site + "?rps=10")  # a fresh tab, the same profile
        names = fetched(second)
        assert not {*BIG, STATES, "python_stdlib.zip", "pyodide.asm.wasm"} & set(names), names
        info = second.evaluate("window.pdsplit.python()")
        assert set(BIG) <= set(info["kept"]) and info["boot"] == "snapshot"
        assert "which this browser kept from an earlier visit" in second.text_content("#status")
        assert second.evaluate("window.pdsplit.result()") == sim.compare(rps=10)
        assert second.watch.console_errors() == []
    finally:
        context.close()


def test_without_the_packed_core_the_plain_one_is_used(browser, site):
    """The packed core is missing, and says so only once Pyodide has started (its lock file
    asked for): the plain core is then fetched from the network all the same, not from the
    empty answer the worker gives Pyodide's own fetch of it meanwhile."""
    held = []

    def lock(route):
        for gone in held:
            gone.fulfill(status=404, body="gone")
        held.clear()
        route.continue_()

    context = browser.new_context()
    context.route("**/pyodide.asm.wasm.gz", lambda route: held.append(route))
    context.route("**/pyodide-lock.json", lock)
    try:
        page = visit(context, site + "?prompt=500")
        names = fetched(page)
        assert names.count("pyodide.asm.wasm") == 1
        assert page.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
        assert page.evaluate("window.pdsplit.result()") == sim.compare(prompt=500)
    finally:
        context.close()


def test_older_builds_copies_go_and_a_wrong_copy_is_fetched_again(browser, site):
    """An older build of this folder kept its snapshot under its own ?v=: once this build has
    booted, that copy is deleted, and another folder's is left alone. A copy of this build's
    snapshot that is wrong (cut short) is not used: the page boots plainly, says why, forgets
    it, and the next visit fetches it again and boots from it."""
    folder = site  # the page's folder: the worker's, dist/'s root
    other = site.replace("/pdsplit/", "/another-lesson/")
    context = browser.new_context()
    try:
        page = visit(context, site)
        snapshot = next(u for u in page.watch.requests if urlparse(u).path.endswith("/snapshot.bin.gz"))
        until(page, "async (u) => Boolean(await (await caches.open('pdsplit')).match(u))", snapshot)
        page.evaluate("""async ([old, other, snapshot]) => {
            const cache = await caches.open("pdsplit");
            await cache.put(old, new Response("an older build's snapshot"));
            await cache.put(other, new Response("another lesson's snapshot"));
            const whole = new Uint8Array(await (await cache.match(snapshot)).arrayBuffer());
            await cache.put(snapshot, new Response(whole.slice(0, whole.length >> 1)));
        }""", [folder + "snapshot.bin.gz?v=000000000000", other + "snapshot.bin.gz?v=000000000000", snapshot])
        page.close()

        cut = visit(context, site)
        info = cut.evaluate("window.pdsplit.python()")
        assert info["boot"] == "plain" and "corrupt" in info["fallback"]
        assert "python_stdlib.zip" in fetched(cut)  # a plain boot needs the whole of it
        assert cut.evaluate("window.pdsplit.result()") == sim.compare()
        until(cut, "async (u) => !(await (await caches.open('pdsplit')).keys()).some((r) => r.url === u)",
              folder + "snapshot.bin.gz?v=000000000000")
        assert other + "snapshot.bin.gz?v=000000000000" in kept(cut, other)
        cut.close()

        again = visit(context, site)  # the wrong copy was forgotten: kept, it would fail again
        assert again.evaluate("window.pdsplit.python()")["boot"] == "snapshot"
        assert again.evaluate("window.pdsplit.result()") == sim.compare()
    finally:
        context.close()


def test_without_a_cache_api_every_visit_downloads_as_before(browser_type, browser_type_launch_args, site):
    """Served over plain http by another machine's name, the page is not a secure context and
    has no Cache API: it boots as it did before, each visit downloading what it needs."""
    port = urlparse(site).port
    args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP pdsplit.test 127.0.0.1"]
    browser = browser_type.launch(**{**browser_type_launch_args, "args": args})
    try:
        context = browser.new_context()
        url = site.replace(f"127.0.0.1:{port}", f"pdsplit.test:{port}")
        for rps in (4, 10):
            page = visit(context, url + f"?rps={rps}")
            assert page.evaluate("window.isSecureContext") is False
            assert all(name in fetched(page) for name in (*BIG, STATES))
            info = page.evaluate("window.pdsplit.python()")
            assert info["boot"] == "snapshot" and info["kept"] == []
            assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=rps)
            page.close()
    finally:
        browser.close()


def test_the_standard_library_waits_in_reach_of_the_worker(browser, strict_site):
    """A boot from the snapshot fetches no standard library: should an import need it, the
    snapshot's Python fetches it then with a synchronous request from the worker (snapshot.mjs,
    STDLIB_ON_DEMAND, which the build checks in Node). Here, on the strict host, the worker
    can make that request to the URL it gives Python, and gets the whole zip."""
    context = browser.new_context()
    try:
        page = visit(context, strict_site.url)
        assert "python_stdlib.zip" not in fetched(page)
        (worker,) = [w for w in page.workers if "worker.js" in w.url]
        got = worker.evaluate("""() => {
            const request = new XMLHttpRequest();
            request.open("GET", self.pdsplitStdlib, false);
            request.responseType = "arraybuffer";
            request.send();
            return {status: request.status, bytes: request.response.byteLength, url: self.pdsplitStdlib};
        }""")
        (zipped,) = DIST.glob("pyodide/*/python_stdlib.zip")
        assert got["status"] == 200 and got["bytes"] == zipped.stat().st_size
        assert urlparse(got["url"]).path.endswith(f"/pyodide/{zipped.parent.name}/python_stdlib.zip")
        assert page.evaluate("window.pdsplit.result()") == sim.compare()
        assert strict_site.reports == []  # nothing the CSP refused
    finally:
        context.close()


def test_without_decompression_the_plain_states_file_is_read(browser, site):
    """A page whose browser cannot unpack gzip reads the named states' results from the plain
    states.json: a named state's baked numbers are shown before Python (its snapshot held
    until they are) and equal native Python's."""
    context = browser.new_context()
    context.add_init_script("""delete globalThis.DecompressionStream;
        addEventListener('pdsplit:numbers', (e) => {
            if (e.detail.source === 'baked' && !window.__baked) {
                window.__baked = window.pdsplit.result();
                window.bakedShown();
            }
        });""")
    hold_snapshot_until(context, "bakedShown")
    try:
        page = visit(context, site + "?rps=10")  # "Busy: 10 req/s", a named state
        names = fetched(page)
        assert "states.json" in names and STATES not in names, names
        assert page.evaluate("window.__baked") == sim.compare(rps=10)
        assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=10)  # Python's, then
        assert page.watch.console_errors() == []
    finally:
        context.close()


def test_a_changed_build_is_never_served_the_old_wheel(browser, site):
    """The same folder, two builds in turn, in one browser profile, each booting plainly (its
    snapshot missing), so that each installs its wheel: build B (here: every ?v= another, and
    a wheel of other bytes) asks only for its own wheel's URL and gets its bytes, never the
    wheel build A had installed; neither the page nor its service worker keeps a wheel."""
    old = baked()["version"]
    new = "b" * len(old)
    (wheel,) = DIST.glob("*.whl")
    other = io.BytesIO()  # another wheel: the same files, other bytes
    with zipfile.ZipFile(wheel) as source, zipfile.ZipFile(other, "w") as copy:
        for item in source.infolist():
            copy.writestr(item, source.read(item.filename))
        copy.comment = b"build B"
    types, folder = readme_mime_types(), urlparse(site).path
    asked = []  # (build, wheel bytes) for each wheel given

    def serve(route):
        url = urlparse(route.request.url)
        version = parse_qs(url.query).get("v", [None])[0]
        name = url.path[len(folder):] if url.path.startswith(folder) else None
        b = version == new or (name == "" and "build=b" in url.query)
        if name is None or not (b or version == old or name == ""):
            return route.continue_()  # Pyodide's own files, by their version folder
        name = name or "index.html"
        if name == "snapshot.bin.gz":
            return route.fulfill(status=404, body="not here: boot plainly")
        body = (DIST / name).read_bytes()
        if name == wheel.name:
            body = other.getvalue() if b else body
            asked.append(("B" if b else "A", version, body == wheel.read_bytes()))
        elif b and name.endswith((".html", ".js")):
            body = body.replace(old.encode(), new.encode())
        suffix = "." + name.rsplit(".", 1)[-1]
        route.fulfill(status=200, body=body, headers={"Content-Type": types.get(suffix, "application/octet-stream")})

    context = browser.new_context()
    context.route("**/*", serve)
    try:
        for build in ("a", "b"):
            page = visit(context, site + f"?build={build}&rps=5")
            info = page.evaluate("window.pdsplit.python()")
            assert info["boot"] == "plain" and "snapshot" in info["fallback"]
            assert page.evaluate("window.pdsplit.result()") == sim.compare(rps=5)
            kept = page.evaluate("async () => (await (await caches.open('pdsplit')).keys()).map((r) => r.url)")
            assert not [u for u in kept if ".whl" in u], kept
            page.close()
        # A installed its own wheel; B asked only for B's URL, and got B's bytes
        assert asked == [("A", old, True), ("B", new, False)], asked
    finally:
        context.close()
