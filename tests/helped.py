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
