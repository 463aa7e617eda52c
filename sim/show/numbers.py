"""How numbers are written, for the CLI, the page and the figures alike: percentages, times,
settings, plain tables, and the tags that mark a number in running text for the page.

The page shows text made here (in the browser's Python), so a figure reads the same in a
terminal, on the page and in a caption. Everything in sim/show/ writes its numbers with these.
"""

import re


def percent(x):
    return f"{x * 100:.1f}%"


def ms(seconds):
    return f"{seconds * 1000:.1f} ms"


# The measures that are shares of the requests (or of an instance's room), written as percentages.
SHARES = ("goodput", "missed_ttft_only", "missed_gap_only", "missed_both", "kv_peak",
          "reader_kv_peak", "writer_kv_peak", "backpressure")


def value(key, x):
    """A metric as the page and the tables show it (a percentile of no request: "none")."""
    if x is None:
        return "none"
    if key in SHARES:
        return percent(x)
    if key in ("good", "requests", "dropped"):
        return f"{x:,}"
    return ms(x)


def number(x):
    """A setting, shortest form: 4, 0.25, 12.5."""
    return f"{x:g}" if isinstance(x, float) else f"{x:,}"


def a(x):
    """A number with its article, as read aloud: "a 2,000", "an 8,000", "an 11"."""
    text = number(x)
    spoken_first = text.split(",")[0].split(".")[0]  # "11" in 11,000: "eleven thousand"
    return f"an {text}" if text.startswith("8") or spoken_first in ("11", "18") else f"a {text}"


def tag(key, text):
    """A number in running text (a caption), marked so the page can give it its own
    data-metric="<key>", as it does the headline's; `untag` takes the marks out again."""
    return f"\x02{key}\x1f{text}\x03"


def an(key, x):
    """A tagged number with its article: "a 2,000", of which "2,000" carries the tag."""
    article, text = a(x).split(" ", 1)
    return f"{article} {tag(key, text)}"


TAGGED = re.compile("\x02([a-z_0-9]+[.][a-z_0-9]+)\x1f([^\x03]*)\x03")


def untag(text):
    """Tagged text as the headline is written: (template with {key} fields, {key: text})."""
    texts = {}

    def field(found):
        texts[found[1]] = found[2]
        return "{" + found[1] + "}"

    return TAGGED.sub(field, text), texts


def shown(result):
    """Every number of a compare result as text, keyed as the page's data-metric attributes."""
    out = {}
    for layout in layouts(result):
        for key, x in result[layout].items():
            out[f"{layout}.{key}"] = value(key, x)
    return out


def layouts(result):
    """The layouts a compare result holds, in the order tables show them."""
    return [layout for layout in ("shared", "split", "chunked") if layout in result]


# Requests a window needs before a finding drawn from it settles: a verdict, a best ratio, a
# rate goodput (or a headline) from fewer says so in its own sentence. Measured from how much
# the rate goodput moves between a window's two halves (20 windows each of the lesson's
# traffic and of Azure chat, on 2 and on 4 GPUs): from windows of 200, the halves' rate
# goodputs differ by 12 to 22% (median); from 100, by 15 to 34%; from 12, by 72% and more
# (and which layout wins flips in 5 of 8 windows of Azure code). The lesson's 600: 6 to 8%.
SETTLES = 200


def unsettled(key, n):
    """" (only 12 requests: too few to settle it, which takes about 200)", each number tagged
    (<key>.thin, <key>.settles), for a finding drawn from n requests; "" from SETTLES up."""
    if n >= SETTLES:
        return ""
    return (f" (only {tag(key + '.thin', number(n))} request{'' if n == 1 else 's'}: too few "
            f"to settle it, which takes about {tag(key + '.settles', number(SETTLES))})")


def plural(n, word):
    return f"{number(n)} {word}" + ("" if n == 1 else "s")


def fill(template, texts):
    """A template's {layout.metric} fields as text (the page fills them with marked-up text)."""
    for key, text in texts.items():
        template = template.replace("{" + key + "}", text)
    return template


def setting(x):
    """A setting's value as written on the command line: 4, 0.25, least-loaded."""
    return x if isinstance(x, str) else number(x)


def table(rows, header):
    """Plain aligned text: first column left, the others right."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

    def line(r):
        cells = [str(r[0]).ljust(widths[0])]
        cells += [str(c).rjust(w) for c, w in zip(r[1:], widths[1:])]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header)] + [line(r) for r in rows])


def rate(x):
    """A rate goodput, req/s per GPU, to three figures as the papers quote it: 0.209, 3.33."""
    return f"{x:#.3g}".rstrip(".")
