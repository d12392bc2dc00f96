"""Tracing: lazy arrays that record NumPy calls, and graph breaks where Python needs values."""
