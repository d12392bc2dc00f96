"""Codegen: kernel expressions rendered as self-contained C++ (the text users read)."""
