"""The analysis board: any position, the engine's lines on a worker, the moves tried kept as a
tree of variations (docs/explore.md)."""
