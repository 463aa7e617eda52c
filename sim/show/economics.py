"""How the economics are written: `python -m sim economics`'s table, and which prices and
power a cost figure used, in words (every cost figure says which prices it used)."""

from ..model.economics import EXAMPLE_PRICE, TDP
from .report import LAYOUT_WORDS, number, percent, plural, rate, table


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
