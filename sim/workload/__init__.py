"""Where requests come from: the lesson's seeded draws (draws.py), or real traffic (docs/model.md: "Real traffic"):
a trace file read a line at a time (tracefile.py, its times by clock.py), the two Azure traces
shipped in data/ with their NOTICE (azure.py), a trace's window and its arrivals (window.py),
which of them a setting asks for (sources.py), and what the traffic looks like (summary.py).

Below the model: it imports nothing from the rest of `sim` but the settings.
"""
