"""The points that the page's figures' worker simulated for the main charts (web/help.js),
seen from outside the page: an init script that counts them as the page hands them on to the
numbers' worker, with a figure request. Shared by tests/page/test_page_sketch.py and
bench/chart_speed.py."""

TOLD = """
    window.__told = 0;
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, ...rest) {
        for (const points of message?.type === "figure" ? message.told ?? [] : [])
            window.__told += JSON.parse(points).length;
        return post.call(this, message, ...rest);
    };
"""


def figures_worker_up(page, timeout=120_000):
    """Wait until the page's figures' worker has booted. It starts once the first numbers are
    on screen and boots from the first worker's snapshot, so a page opened at a named state
    (whose charts come from the build) can be settled before it is up; until then the numbers'
    worker simulates every point itself, rightly. pdsplit.memory() names a worker only once it
    exists, and answers for it only once it has booted."""
    page.wait_for_function("async () => 'figures' in await window.pdsplit.memory()",
                           polling=100, timeout=timeout)
