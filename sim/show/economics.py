"""How the economics are written: `python -m sim economics`'s table, which prices and power a
cost figure used, in words (every cost figure says which prices it used), and the page's good
requests per dollar and per kWh beside the rate goodput, with its price fields' placeholders."""

from functools import partial

from ..model.economics import EXAMPLE_PRICE, TDP
from ..model.lab import RATE_STEPS
from ..model.layouts import layouts_of
from .report import LAYOUT_WORDS
from .numbers import number, percent, plural, rate, table, tag


def dollars(x):
    return f"${x:,.2f}"


def count(x):
    """Good requests, watts: whole numbers, rounded, with thousands marked (13,056)."""
    return f"{x:,.0f}"


def pool_words(n, role, kind, price, power):
    """"4 H100 readers at $3.00 an hour each (the example price), uncapped (700 W each)"."""
    given = price > 0
    price = price if given else EXAMPLE_PRICE[kind]
    cap = "uncapped" if power == 1.0 else f"capped at {percent(power)} of TDP"
    return (f"{plural(n, f'{kind} {role}')} at {dollars(price)} an hour each "
            f"({'given' if given else 'the example price'}), {cap} "
            f"({count(TDP[kind] * power)} W each)")


def prices_used(s):
    """Which prices (and power) the economics of settings s used, in words."""
    readers = pool_words(s.readers, "reader", s.reader_gpu, s.reader_price, s.reader_power)
    writers = pool_words(s.gpus - s.readers, "writer", s.writer_gpu, s.writer_price,
                         s.writer_power)
    return f"{readers}; {writers}"


def economics_table(found, s):
    """`python -m sim economics`: each layout's rate goodput, and what it serves per dollar
    and per kWh of the GPUs."""
    first = next(iter(found.values()))
    rows = [[LAYOUT_WORDS[layout], rate(e["rate"]), count(e["per_dollar"]),
             count(e["per_kwh"])] for layout, e in found.items()]
    return "\n".join([
        f"Good requests per dollar and per kWh, at each layout's rate goodput (the most load "
        f"at which {percent(s.attainment)} of requests are good) on the same "
        f"{number(s.gpus)} GPUs: {prices_used(s)}.",
        f"They cost {dollars(first['price_per_hour'])} an hour and draw "
        f"{count(first['watts'])} W (the power caps times the TDPs, while on: no idle power, "
        f"nothing for the rest of the machine).",
        "",
        table(rows, ["", "rate goodput (req/s per GPU)", "good requests per $", "per kWh"]),
    ])


# ---- the page's economics: good requests per dollar and per kWh, beside the rate goodput ----

def economics_needs(lab, s):
    """The economics' simulations (the rate goodput's bisections), a simulation a piece, so
    the page can do them between newer settings' numbers; none once the rates are known."""
    return [partial(lab.economics_step, s)] * (len(layouts_of(s)) * (RATE_STEPS + 3))


def pool_tagged(pool, n, kind, price, power):
    """One pool in the page's words, every number tagged: "1 A100 reader at $1.30 an hour
    (the example price), uncapped (400 W)"."""
    each = "" if n == 1 else " each"
    given = price > 0
    cap = ("uncapped" if power == 1.0 else
           f"capped at {tag(f'economics.{pool}_power', percent(power))} of its TDP")
    return (f"{tag(f'economics.{pool}s', number(n))} {kind} {pool}{'' if n == 1 else 's'} at "
            f"{tag(f'economics.{pool}_price', dollars(price if given else EXAMPLE_PRICE[kind]))} "
            f"an hour{each} ({'given' if given else 'the example price'}), {cap} "
            f"({tag(f'economics.{pool}_watts', count(TDP[kind] * power))} W{each})")


def economics_words(lab, s):
    """Good requests per dollar and per kWh of each layout, in words beside the rate goodput
    (no chart), saying which prices and power they used (the page's explorer)."""
    found = lab.economics(s)
    first = next(iter(found.values()))

    def per(measure):
        return ", ".join(f"{name} {tag(f'economics.{name}_{measure}', count(e[measure]))}"
                         for name, e in found.items())

    readers = pool_tagged("reader", s.readers, s.reader_gpu, s.reader_price, s.reader_power)
    writers = pool_tagged("writer", s.gpus - s.readers, s.writer_gpu, s.writer_price,
                          s.writer_power)
    return None, (
        f"Good requests per dollar: {per('per_dollar')}. Per kWh: {per('per_kwh')}. Each layout "
        f"at its rate goodput above, on the same {tag('economics.gpus', number(s.gpus))} GPUs: "
        f"{readers}; {writers}. They cost "
        f"{tag('economics.price_per_hour', dollars(first['price_per_hour']))} an hour and draw "
        f"{tag('economics.watts', count(first['watts']))} W (the power caps times the TDPs, "
        f"while on: no idle power, nothing for the rest of the machine).")


def article(kind):
    """"an A100", "an H100", "a B200": the article a chip's name takes, read aloud."""
    return f"{'an' if kind[0] in 'AEFHILMNORSX' else 'a'} {kind}"


def example_prices():
    """The page's price fields' placeholders, by kind: "$3.00 for an H100" (empty: the
    example price of the pool's kind)."""
    return {kind: f"{dollars(price)} for {article(kind)}" for kind, price in EXAMPLE_PRICE.items()}
