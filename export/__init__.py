"""export: GGUF export (`python -m export.gguf`), parity with MLX, and the Hub release (`python -m export.hub`).

See export/README.md for the commands and which module does what. Left out here: nothing is imported eagerly, so
`import export` stays cheap.
"""
