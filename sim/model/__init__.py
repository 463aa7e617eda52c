"""What the toy is: the costs, one GPU's loop, chunked reading, the link, routing, the layouts
that put them together, the metrics, and the lab that runs and caches them.

It imports only the settings and the workload (where requests come from) from the rest of
`sim`: nothing that shows it, nothing that checks it. tests/test_layers.py holds it to that.
"""
