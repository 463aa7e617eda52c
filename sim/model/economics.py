"""What the GPUs cost to run, and what a dollar and a kWh of them serve (docs/model.md:
"Price and power").

Every layout runs on the same GPUs (GPUs 0 .. readers-1 of kind reader_gpu, the rest of kind
writer_gpu), so every layout costs the same an hour and draws the same power; what differs is
how many good requests each serves at its rate goodput. The toy counts a GPU's TDP times its
power cap whenever it is on: no idle power, nothing for the rest of the machine (CPUs, memory,
network, cooling), and no clock that falls other than linearly under a cap.
"""

from math import fsum

# Thermal design power, watts: NVIDIA's datasheets.
# - A100 80 GB SXM: 400 W (NVIDIA A100 datasheet).
# - H100 SXM: up to 700 W, configurable (NVIDIA H100 datasheet).
# - H200 SXM: up to 700 W, configurable (NVIDIA H200 datasheet).
# - B200 in HGX B200: 1,000 W (NVIDIA Blackwell datasheet; the kind sim/model/costs.py has).
TDP = {"A100": 400.0, "H100": 700.0, "H200": 700.0, "B200": 1000.0}

# Example prices, $ per GPU-hour: rounded from mid-2026 on-demand rates at GPU clouds (A100
# 80 GB about $1.10-1.50, H100 SXM $2.50-3.50, H200 $3.30-4.50, B200 $4.50-6.00 an hour). They
# move, and every cost moves with them: reader_price and writer_price set a learner's own.
EXAMPLE_PRICE = {"A100": 1.30, "H100": 3.00, "H200": 3.80, "B200": 5.50}

SECONDS_AN_HOUR = 3600


def pool_prices(s):
    """The price an hour of one reader and of one writer GPU: the given one, or (0) the
    kind's example price."""
    return (s.reader_price or EXAMPLE_PRICE[s.reader_gpu],
            s.writer_price or EXAMPLE_PRICE[s.writer_gpu])


def price_per_hour(s):
    """What the GPUs cost an hour, in $: the sum of their prices."""
    reader, writer = pool_prices(s)
    return fsum([reader] * s.readers + [writer] * (s.gpus - s.readers))


def watts(s):
    """What the GPUs draw, in W: the sum of each one's TDP times its power cap."""
    reader, writer = TDP[s.reader_gpu] * s.reader_power, TDP[s.writer_gpu] * s.writer_power
    return fsum([reader] * s.readers + [writer] * (s.gpus - s.readers))


def economics(rates, s):
    """{layout: rate, price_per_hour, watts, per_dollar, per_kwh}, from each layout's rate
    goodput (req/s per GPU): good requests a dollar and a kWh buy at that load."""
    price, power = price_per_hour(s), watts(s)
    out = {}
    for layout, rate in rates.items():
        served = rate * s.gpus * SECONDS_AN_HOUR  # good requests an hour, in the model's order
        out[layout] = {"rate": rate, "price_per_hour": price, "watts": power,
                       "per_dollar": served / price, "per_kwh": served / (power / 1000)}
    return out
