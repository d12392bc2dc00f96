"""The graph IR: nodes that record NumPy calls, their structural signature and guards."""
