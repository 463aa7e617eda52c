"""What shows the model: how numbers are written (report), the charts and figures as Plotly
dicts, figure 1's word-by-word timeline, the lesson's walk-through, the page's named states
and its one JSON boundary with JavaScript (page.py).

Standard library only, like the model beneath it: the same code runs natively and in the
browser's Pyodide.
"""
