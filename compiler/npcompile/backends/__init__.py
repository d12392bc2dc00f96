"""Backends: generated source -> callable kernels, and the program that runs them."""
