"""Where requests come from: the lesson's seeded draws (draws.py).

Below the model: it imports nothing from the rest of `sim` but the settings.
"""
